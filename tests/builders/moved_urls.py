"""The app's routes with the plan page's addresses moved elsewhere: a page that builds its
addresses from urls.py follows them; one that glues paths from strings does not."""

from django.urls import URLPattern, path

from review.urls import urlpatterns as app_urlpatterns

MOVED = {
    "plan-history": "plans/<int:pk>/log/",
    "plan-accept-rule": "plans/<int:pk>/by-rule/",
    "plan-adjudicate": "plans/<int:pk>/settle/",
    "plan-export": "plans/<int:pk>/settled.json",
    "plan-annotations": "plans/<int:pk>/settled.jsonld",
    "plan-label-studio": "plans/<int:pk>/settled-ls.json",
    "plan-entry-list": "plans/<int:pk>/lists/<int:number>/",
    "entry": "plans/<int:pk>/e/<int:entry_pk>/",
    "entry-edit": "plans/<int:pk>/e/<int:entry_pk>/change/",
    "entry-decide": "plans/<int:pk>/e/<int:entry_pk>/do/<slug:action>/",
}


def moved(pattern):
    if isinstance(pattern, URLPattern) and pattern.name in MOVED:
        return path(MOVED[pattern.name], pattern.callback, pattern.default_args, name=pattern.name)
    return pattern


urlpatterns = [moved(pattern) for pattern in app_urlpatterns]
