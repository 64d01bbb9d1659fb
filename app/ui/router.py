"""GET /ui and its assets: a static page, no auth of its own. Every byte of data it shows comes
from the /v1 API, called by the browser with the key the user pasted."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from app.errors import NotFound
from app.ui.assets import Asset, load_assets

# The page loads only its own scripts and styles and talks only to this origin: no inline code,
# no CDN, no framing. Scripts set styles through the CSSOM, which `style-src 'self'` allows.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    # Revalidated on every load (cheap: an ETag), so an upgraded server never runs stale modules.
    "Cache-Control": "no-cache",
}
# Route templates for the request metrics (these routes are not in the OpenAPI spec): one per
# folder of assets, since a template's `{asset}` matches one path segment.
UI_PATHS = ("/ui", "/ui/", "/ui/{asset}", "/ui/js/{asset}", "/ui/js/views/{asset}")


def make_ui_router() -> APIRouter:
    assets = load_assets()
    router = APIRouter(include_in_schema=False)

    def serve(request: Request, asset: Asset) -> Response:
        if request.headers.get("if-none-match") == asset.etag:
            return Response(status_code=304, headers={**HEADERS, "ETag": asset.etag})
        return Response(asset.body, media_type=asset.media_type, headers={**HEADERS, "ETag": asset.etag})

    @router.get("/ui")
    @router.get("/ui/")
    async def ui_index(request: Request) -> Response:
        return serve(request, assets["index.html"])

    @router.get("/ui/{asset:path}")
    async def ui_asset(request: Request, asset: str) -> Response:
        found = assets.get(asset)
        if found is None:
            raise NotFound(f"No UI asset {asset}.")
        return serve(request, found)

    return router
