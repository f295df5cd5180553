"""Where model rows become grounding values and grounding results become rows.

One module per kind of proposal; views, commands and the API all call these, so
the three doors share one code path.
"""
