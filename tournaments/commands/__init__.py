"""One module per `arena` sub-command; each exposes `register(subparsers)`.

`register` adds the sub-command's parser and sets `handler` to a function taking the parsed
arguments and returning the process exit code.
"""
