"""Code generated from the protocol's JSON Schema bundle: `models` and `methods`.

Do not edit; see `clients/python/scripts/generate.py`.
"""
