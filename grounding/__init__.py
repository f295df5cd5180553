"""The computation behind Grounding Review.

Plain Python, no Django: numbered citations in answers (`citations`), evidence
citations in moderation rationales (`evidence`), documents (`extract`), text-quote
anchors (`anchors`), segmentation plans (`segmentation`), their adjudication
(`adjudication`) and the mechanical proposer (`propose`).
"""

__version__ = "0.1.0"
