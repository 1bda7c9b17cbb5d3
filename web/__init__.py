"""The CatZoo web app (``catzoo serve``): play against bots in a browser.

``create_app()`` builds the FastAPI app; ``catzoo.web.server`` runs it with uvicorn,
bound to 127.0.0.1 unless told otherwise. The page, its scripts and styles are files of
this package (``static/``): nothing is fetched from elsewhere at run time.
"""

from catzoo.web.app import create_app

__all__ = ["create_app"]
