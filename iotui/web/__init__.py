"""``iotui serve``: the app in a browser through textual-serve, behind a per-launch token."""

# The app processes iotui serve starts (one per browser tab) name themselves so in the run lock.
CLIENT_ENV = "IOTUI_CLIENT"
BROWSER_CLIENT = "browser"
