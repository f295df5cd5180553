"""How the files beside this one were made: run once, with the scratch Label Studio's Python,
against a Label Studio started on an empty data folder (README.md says how). Not part of the
suite: it talks to Label Studio over its own REST API and writes what its export gives.

    /tmp/lsenv/bin/python tests/data/label_studio/make_fixtures.py

The spans are the ones `grounding.propose` finds in each text, computed here from the same
headings so the fixtures lie on real boundaries; Label Studio itself stores and exports them.
"""

import pathlib
import re

import requests

BASE = "http://127.0.0.1:8090"
HEADERS = {"Authorization": "Token abcdef0123456789"}
HERE = pathlib.Path(__file__).parent
CORPUS = HERE.parents[2] / "benchmarks" / "corpus" / "proposer" / "text"
CONFIG = (
    '<View><Labels name="label" toName="text"><Label value="Section"/>'
    '<Label value="Preamble"/></Labels><Text name="text" value="$text"/></View>'
)


def api(method, path, **kwargs):
    response = requests.request(method, BASE + path, headers=HEADERS, timeout=60, **kwargs)
    response.raise_for_status()
    return response


def region(text, region_id, start, end, label, title=None):
    found = {
        "id": region_id,
        "from_name": "label",
        "to_name": "text",
        "type": "labels",
        "value": {"start": start, "end": end, "text": text[start:end], "labels": [label]},
    }
    if title is not None:
        found["meta"] = {"text": [title]}
    return found


def heading_starts(text, pattern):
    return [match.start() for match in re.finditer(pattern, text, re.MULTILINE)]


def spans(text, starts):
    bounds = [*starts, len(text)]
    return list(zip(bounds, bounds[1:], strict=False))


pep = (CORPUS / "pep-0257.txt").read_text(encoding="utf-8")
blog = (CORPUS / "blog-rust-challenges.md").read_text(encoding="utf-8")
apache = (CORPUS / "apache-2.0.txt").read_text(encoding="utf-8")

project = api(
    "POST", "/api/projects", json={"title": "Grounding Review fixtures", "label_config": CONFIG}
).json()
pid = project["id"]
api(
    "POST",
    f"/api/projects/{pid}/import",
    json=[
        {"text": pep, "document": "pep-0257.txt"},
        {"text": blog, "document": "blog-rust-challenges.md"},
        {"text": apache, "document": "apache-2.0.txt"},
    ],
)
tasks = {
    t["data"]["document"]: t["id"] for t in api("GET", f"/api/tasks?project={pid}").json()["tasks"]
}

# PEP 257: predictions only, as a machine sends them: every section under an underlined title.
pep_starts = [0, *(s for s in heading_starts(pep, r"^\S.*\n=+\n") if s > 0)]
pep_result = [
    region(pep, f"pep-{n}", start, end, "Preamble" if n == 0 else "Section")
    for n, (start, end) in enumerate(spans(pep, pep_starts))
]
api(
    "POST",
    "/api/predictions",
    json={
        "task": tasks["pep-0257.txt"],
        "result": pep_result,
        "score": 0.8,
        "model_version": "grounding-propose-headings",
    },
)

# The blog post: one annotation made through the API, a person's, with a title on one region.
blog_starts = heading_starts(blog, r"^## ")
blog_result = [
    region(
        blog, f"blog-{n}", start, end, "Section", title="Universal challenges" if n == 0 else None
    )
    for n, (start, end) in enumerate(spans(blog, blog_starts))
]
api(
    "POST",
    f"/api/tasks/{tasks['blog-rust-challenges.md']}/annotations",
    json={"result": blog_result},
)

# The Apache licence: a prediction, then an annotation that differs from it, and one cancelled.
apache_starts = heading_starts(apache, r"^   \d+\. ")
apache_prediction = [region(apache, "apache-p0", 0, apache_starts[0], "Preamble")]
api(
    "POST",
    "/api/predictions",
    json={
        "task": tasks["apache-2.0.txt"],
        "result": apache_prediction,
        "score": 0.5,
        "model_version": "grounding-propose-headings",
    },
)
end_of_terms = apache.index("END OF TERMS AND CONDITIONS")
apache_annotation = [
    region(apache, "apache-a0", 0, apache_starts[0], "Preamble"),
    region(apache, "apache-a1", apache_starts[0], apache_starts[1], "Section"),
    region(apache, "apache-a2", apache_starts[1], end_of_terms, "Section"),
]
api("POST", f"/api/tasks/{tasks['apache-2.0.txt']}/annotations", json={"result": apache_annotation})
api(
    "POST",
    f"/api/tasks/{tasks['apache-2.0.txt']}/annotations",
    json={
        "result": [region(apache, "apache-c0", 0, len(apache), "Section")],
        "was_cancelled": True,
    },
)

# The export snapshot, with the predictions in full (the quick GET export lists only their ids
# and leaves out tasks nobody annotated).
snapshot = api(
    "POST",
    f"/api/projects/{pid}/exports",
    json={"title": "fixtures", "serialization_options": {"predictions": {"only_id": False}}},
).json()
for kind, name in (("JSON", "export.json"), ("JSON_MIN", "export-min.json")):
    body = api(
        "GET", f"/api/projects/{pid}/exports/{snapshot['id']}/download?exportType={kind}"
    ).content
    (HERE / name).write_bytes(body)
    print(name, len(body), "bytes")
