"""Every registered game for research libraries: PettingZoo environments (`pettingzoo_env`),
OpenSpiel games (`openspiel_game`), and a trained policy as a bot (`policy_bot`).

They share one action index space and one observation encoding per game set-up (`spaces`);
docs/research.md is the user's guide. The library adapters are optional extras
(`pip install 'tile-arena[pettingzoo]'`, `'tile-arena[openspiel]'`): this package imports none
of them until one of its modules for that library is imported.
"""
