"""``iotui serve``: the whole app in a browser (textual-serve), on localhost, behind a token."""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import sys
from dataclasses import dataclass, field

from iotui.cli_options import AppOptions, add_common_options, count, seconds, text
from iotui.commands import EXIT_FAILED, EXIT_OK
from iotui.web import BROWSER_CLIENT, CLIENT_ENV

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


@dataclass(frozen=True)
class ServeOptions:
    """``iotui serve``'s options: where to listen, and what each browser tab's app opens with."""

    host: str = "127.0.0.1"
    port: int = 8000
    app: AppOptions = field(default_factory=AppOptions)
    header_timeout_s: float = 10.0
    idle_timeout_s: float = 20.0
    connections_per_client: int = 16

    @classmethod
    def from_namespace(cls, namespace: argparse.Namespace) -> ServeOptions:
        values = vars(namespace)
        host = text(values, "host")
        return cls(
            host="127.0.0.1" if host is None else host, port=count(values, "port", 8000),
            app=AppOptions.from_namespace(namespace),
            header_timeout_s=seconds(values, "header_timeout", cls.header_timeout_s),
            idle_timeout_s=seconds(values, "idle_timeout", cls.idle_timeout_s),
            connections_per_client=count(values, "connections_per_client", cls.connections_per_client),
        )


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="serve the app in a browser (localhost, with a per-launch token)",
        description="Serve the whole app in a web browser through textual-serve. It listens on "
        "127.0.0.1 by default and prints a URL with a random token; requests without the token are "
        "refused. Each browser tab runs its own app. From another machine: ssh -L 8000:127.0.0.1:8000 HOST.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000; 0 picks a free one)")
    parser.add_argument("--header-timeout", type=_positive, default=10.0, metavar="SECONDS",
                        help="close a connection that has not sent a whole request head this long after connecting "
                        "(default 10)")
    parser.add_argument("--idle-timeout", type=_positive, default=20.0, metavar="SECONDS",
                        help="close a connection idle between requests this long (default 20)")
    parser.add_argument("--connections-per-client", type=_at_least_one, default=16, metavar="N",
                        help="connections one client address may hold before it shows the token; a new one closes "
                        "the oldest (default 16)")
    parser.add_argument("--target", help="the target each app starts with (default: the current directory)")
    parser.add_argument("--preset", help="the preset each app starts with")
    add_common_options(parser, subcommand=True)
    parser.set_defaults(handler=handle)


def _positive(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        number = float("nan")
    if not 0 < number <= 3600:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of seconds above 0 and at most 3600")
    return number


def _at_least_one(value: str) -> int:
    if not value.isascii() or not value.isdigit() or not 1 <= int(value) <= 100_000:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number from 1 to 100000")
    return int(value)


def app_command(options: AppOptions) -> str:
    """The shell command textual-serve runs for each browser tab: this iotui, same options."""
    argv = [sys.executable, "-m", "iotui"]
    for flag, value in (("--runs-dir", options.runs_dir), ("--fio", options.fio),
                        ("--target", options.target), ("--preset", options.preset)):
        if value:
            argv += [flag, str(value)]
    return shlex.join(argv)


def handle(args: argparse.Namespace) -> int:
    return _serve(ServeOptions.from_namespace(args))


def _serve(options: ServeOptions) -> int:
    try:
        from iotui.web.limits import ServeLimits
        from iotui.web.server import TokenServer, serve_forever
    except ImportError as error:
        print(f"iotui: serve needs textual-serve ({error.name} is missing); "
              "install it with: pip install textual-serve", file=sys.stderr)
        return EXIT_FAILED
    if not 0 <= options.port <= 65535:
        print(f"iotui: --port {options.port} is not a port number (0 to 65535).", file=sys.stderr)
        return EXIT_FAILED
    os.environ[CLIENT_ENV] = BROWSER_CLIENT
    limits = ServeLimits(header_timeout_s=options.header_timeout_s, idle_timeout_s=options.idle_timeout_s,
                         connections_per_client=options.connections_per_client)
    server = TokenServer(app_command(options.app), host=options.host, port=options.port, title="iotui", limits=limits)

    def on_listening(listening) -> None:
        print(f"iotui serve: open {listening.url}", flush=True)
        if options.host not in LOCAL_HOSTS:
            print(f"iotui serve: listening on {options.host}: anyone who can reach it and has the URL can run "
                  "benchmarks on this machine.", file=sys.stderr, flush=True)
        else:
            print(f"iotui serve: from another machine: ssh -L {listening.port}:127.0.0.1:{listening.port} "
                  "THIS-HOST, then open the same URL there. Ctrl-C stops.", file=sys.stderr, flush=True)

    try:
        asyncio.run(serve_forever(server, on_listening))
    except OSError as error:
        print(f"iotui: cannot listen on {options.host}:{options.port} ({error.strerror or error}); "
              "choose another --port.", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        pass
    return EXIT_OK
