"""``dy2st``: the command line of the compiler (argparse).

``dy2st convert | export | inspect | run | onnx``; ``dy2st <cmd> --help`` shows each one's
options and examples. Results go to stdout; progress lines (with --verbose, or when stderr is a
terminal) and errors go to stderr. An error is one line, ``dy2st <cmd>: error: ...``, with exit
code 2 for a wrong command line and 1 for a failure; ``--debug`` adds the traceback.
"""
from __future__ import annotations

import argparse
import os
import sys
import traceback
import warnings

from . import convert, export, inspect as inspect_cmd, onnx_cmd, run
from ._common import UI, CLIError

__all__ = ["main", "build_parser"]

COMMANDS = (convert, export, inspect_cmd, run, onnx_cmd)

_EPILOG = """\
examples:
  dy2st convert examples/cli/controlflow.py -o controlflow_static.py
  dy2st export examples/cli/mlp.py:MLP --input-spec "x:float32[None,784]" -o build/mlp --format both
  dy2st inspect build/mlp --dot mlp.dot
  dy2st run build/mlp --input x=batch.npy
  dy2st onnx build/mlp -o mlp.onnx --opset 17

`dy2st COMMAND --help` shows the options of each command.
"""


class _Exit(Exception):
    def __init__(self, code):
        super().__init__(code)
        self.code = code


class _Parser(argparse.ArgumentParser):
    """argparse that reports a bad command line as one line (exit 2) and never calls sys.exit."""

    def error(self, message):
        print(f"{self.prog}: error: {message} (see `{self.prog} --help`)", file=sys.stderr)
        raise _Exit(2)

    def exit(self, status=0, message=None):
        if message:
            sys.stderr.write(message)
        raise _Exit(status)


def _common_options(parser, top):
    # on the subcommands the defaults are SUPPRESS, so `dy2st --verbose run ...` is not reset by `run`
    default = False if top else argparse.SUPPRESS
    parser.add_argument("-v", "--verbose", action="store_true", default=default,
                        help="print progress lines on stderr")
    parser.add_argument("--debug", action="store_true", default=default,
                        help="show the full traceback on errors")


def build_parser():
    from .. import __version__
    parser = _Parser(prog="dy2st", description="The dy2st compiler: convert model scripts to static Programs, "
                     "export them as Paddle inference files or ONNX, and inspect or run saved models.",
                     epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"dy2st {__version__}")
    _common_options(parser, top=True)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for mod in COMMANDS:
        p = sub.add_parser(mod.NAME, help=mod.HELP, description=mod.DESCRIPTION, epilog=mod.EXAMPLES,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        _common_options(p, top=False)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def _one_line(text):
    lines = [ln.strip() for ln in str(text).strip().splitlines() if ln.strip()]
    return "; ".join(lines[:1]) if lines else ""


def _user_site(e):
    """``file:line`` from the note the compiler attaches to errors raised in user code."""
    import os
    import re
    for note in getattr(e, "__notes__", ()) or ():
        m = re.search(r'File "([^"]+)", line (\d+)', note)
        if m:
            return f"{os.path.basename(m.group(1))}:{m.group(2)}"
    return None


def describe_error(e):
    """The one-line message for exception ``e``, and whether it is an unexpected (internal) one."""
    from runtime.formats.errors import ModelFormatError
    from runtime.onnx.lowering import UnsupportedOpError

    from ..errors import Dy2StaticError
    from .input_spec_syntax import InputSpecSyntaxError
    from .script_loading import ScriptError
    if isinstance(e, (CLIError, ScriptError, InputSpecSyntaxError, ModelFormatError, UnsupportedOpError,
                      Dy2StaticError)):
        msg = _one_line(e)
        cause = e.__cause__ if isinstance(e, ScriptError) else e
        site = _user_site(cause) if cause is not None else None
        if site and site not in msg:
            msg += f" (at {site})"
        return msg, False
    if isinstance(e, (FileNotFoundError, IsADirectoryError, PermissionError)) and getattr(e, "filename", None):
        return f"{e.strerror.lower() if e.strerror else 'cannot open'}: {e.filename}", False
    msg = f"{type(e).__name__}: {_one_line(e)}"
    site = _user_site(e)
    if site:
        msg += f" (at {site})"
    return msg, not isinstance(e, (ValueError, TypeError, NotImplementedError, OSError))


def _exit_code(e):
    """2 for a wrong command line (bad option values), 1 for a failure."""
    from .input_spec_syntax import InputSpecSyntaxError
    if isinstance(e, CLIError):
        return e.code
    return 2 if isinstance(e, InputSpecSyntaxError) else 1


def main(argv=None) -> int:
    """Run the ``dy2st`` command with ``argv`` (default ``sys.argv[1:]``); returns the exit code."""
    parser = build_parser()
    try:
        args, extra = parser.parse_known_args(argv)
    except _Exit as e:
        return e.code
    if extra:      # reported by the subcommand that got them, not by the top-level parser
        prog = f"dy2st {args.command}" if getattr(args, "command", None) else "dy2st"
        print(f"{prog}: error: unrecognized arguments: {' '.join(extra)} (see `{prog} --help`)", file=sys.stderr)
        return 2
    if getattr(args, "_run", None) is None:
        print("dy2st: error: missing command: one of convert, export, inspect, run, onnx (see `dy2st --help`)",
              file=sys.stderr)
        return 2
    ui = UI(args.command, verbose=args.verbose)
    showwarning = warnings.showwarning

    def one_line_warning(message, category, filename, lineno, file=None, line=None):
        ui.warn(_one_line(message))
    warnings.showwarning = one_line_warning
    try:
        code = args._run(args, ui)
        sys.stdout.flush()
        return int(code or 0)
    except KeyboardInterrupt:
        print(f"dy2st {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (``dy2st inspect m | head``): stop quietly, as Unix tools do
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except OSError:
            pass
        return 0
    except Exception as e:     # every failure: one line (and the traceback with --debug)
        if args.debug:
            traceback.print_exc()
        msg, internal = describe_error(e)
        if internal and not args.debug:
            msg += " (this looks like a bug in dy2st; run with --debug for the traceback)"
        print(f"dy2st {args.command}: error: {msg}", file=sys.stderr)
        return _exit_code(e)
    finally:
        warnings.showwarning = showwarning


if __name__ == "__main__":   # pragma: no cover
    sys.exit(main())
