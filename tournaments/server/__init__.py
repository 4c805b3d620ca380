"""The league server (`arena serve`): the league's pages and HTTP API (Starlette, served by
Hypercorn's trio worker) and its ladder and checks, in one trio program."""
