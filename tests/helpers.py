"""Small builders shared by the tests. (The seed suites import `make_source` from here.)"""

from __future__ import annotations


def make_source(title: str, year: int) -> dict:
    """A retrieved source with every optional field filled in."""
    slug = "".join(ch for ch in title.lower() if ch.isalnum()) or "source"
    return {
        "title": title,
        "year": year,
        "authors": [f"{title} Author", "Second Author"],
        "url": f"https://example.org/{slug}/{year}",
        "venue": f"Journal of {title}",
        "doi": f"10.1000/{slug}.{year}",
    }
