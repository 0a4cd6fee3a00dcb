"""Many hosts over ssh: transport, lifeline, alignment and the aggregate."""
