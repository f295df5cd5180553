"""The computation behind Grounding Review.

Plain Python, no Django: numbered citations in answers (`citations`, and source lists
written as `[n] URL` lines: `sources`), evidence citations in moderation rationales
(`evidence`), documents (`extract`, `pdf_outline`), text-quote anchors (`anchors`),
where a proposed span lies now (`placement`), paragraph boundaries (`paragraphs`),
segmentation plans (`segmentation`), their adjudication (`adjudication`), the mechanical
proposer (`propose`, its heading finders in `headings`), and the statistics of what the
decisions teach (`agreement`, `ledger`).
"""

# The proposer names itself with this version in every plan (`proposed_by`), so the insights
# tell one version's rules from another's: raise it whenever a rule changes. 0.2.0: page
# furniture, contents and references gates, underlined and capitals headings, PDF outlines,
# the preamble.
__version__ = "0.2.0"
