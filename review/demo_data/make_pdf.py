"""Write the demo PDF, veileder-brannsikkerhet-bolig.pdf, beside this script.

The PDF is committed; run this only after changing the text below:

    .venv/bin/python review/demo_data/make_pdf.py

fpdf2 is a development dependency. The creation date is fixed so that the same text
gives the same bytes (and so the same document hash) every time.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from fpdf import FPDF

OUT = Path(__file__).with_name("veileder-brannsikkerhet-bolig.pdf")
CREATED = dt.datetime(2024, 3, 1, 12, 0, tzinfo=dt.UTC)

TITLE = "Veileder: Brannsikkerhet i egen bolig (demodokument)"
INTRO = (
    "Denne veilederen er skrevet for Grounding Review som eksempel på en PDF med "
    "nummererte avsnitt. Rådene er forenklet og erstatter ikke gjeldende regelverk."
)

# (heading, paragraphs); a heading starting with a section number is what the
# proposer's numbered-heading rule looks for in PDF text.
SECTIONS: list[tuple[str, list[str]]] = [
    (
        "1 Innledning",
        [
            "De fleste dødsbranner i Norge skjer i boliger, og mange av dem starter om "
            "natten mens folk sover. Enkle tiltak som fungerende røykvarslere, "
            "slokkeutstyr og en plan for hvordan alle kommer seg ut, redder liv.",
            "Veilederen retter seg mot eiere og leietakere av eneboliger, rekkehus og "
            "leiligheter. Eier har ansvar for at utstyret finnes, mens den som bor i "
            "boligen, har ansvar for at det virker.",
        ],
    ),
    (
        "2 Røykvarslere",
        [
            "Alle boliger skal ha minst én røykvarsler i hver etasje. Varsleren skal "
            "høres tydelig på alle soverom når dørene er lukket.",
        ],
    ),
    (
        "2.1 Plassering",
        [
            "Monter røykvarsleren i taket, minst en halv meter fra vegger og hjørner. "
            "Det beste stedet er i gangen utenfor soverommene. Unngå kjøkken og bad, "
            "der damp og matos gir falske alarmer.",
            "I boliger med flere etasjer bør varslerne være seriekoblet, slik at alle "
            "varsler samtidig når én av dem oppdager røyk.",
        ],
    ),
    (
        "2.2 Vedlikehold",
        [
            "Test røykvarsleren minst en gang i kvartalet ved å trykke på testknappen. "
            "Bytt batteri hvert år, for eksempel hver gang du pynter til jul, og bytt "
            "hele varsleren etter ti år.",
        ],
    ),
    (
        "3 Slokkeutstyr",
        [
            "Hver bolig skal ha slokkeutstyr som kan nå alle rom. Det kan være en "
            "husbrannslange som er koblet til vanninntaket, eller et pulverapparat på "
            "minst seks kilo. Et brannteppe på kjøkkenet er et godt supplement.",
            "Lær hvordan utstyret brukes før det trengs. Et pulverapparat skal vendes "
            "jevnlig, slik at pulveret ikke klumper seg.",
        ],
    ),
    (
        "4 Rømning fra boligen",
        [
            "Alle som bor i boligen, skal kjenne to veier ut fra soverommet. Den ene er "
            "vanligvis døren, den andre et vindu eller en balkong.",
        ],
    ),
    (
        "4.1 Vinduer som rømningsvei",
        [
            "Et vindu som skal brukes til rømning, må være lett å åpne og stort nok til "
            "at en voksen kommer seg ut. Ligger vinduet høyt over bakken, bør det finnes "
            "en stige eller et tau som er festet ved vinduet.",
            "Avtal et fast møtested utenfor boligen, slik at dere raskt ser om alle er "
            "kommet ut. Gå aldri tilbake inn i et brennende hus.",
        ],
    ),
    (
        "5 Elektriske anlegg",
        [
            "Feil bruk av elektrisk utstyr er en vanlig brannårsak. Ikke la vaskemaskin "
            "eller oppvaskmaskin gå om natten eller når ingen er hjemme, og trekk ut "
            "laderen når mobilen er ferdig ladet.",
            "Kontakt en registrert elektroinstallatør dersom sikringene ofte går, eller "
            "dersom brytere og stikkontakter blir varme.",
        ],
    ),
]


def build() -> bytes:
    pdf = FPDF(format="A4")
    pdf.set_creation_date(CREATED)
    pdf.set_title(TITLE)
    pdf.set_author("Grounding Review")
    pdf.set_margins(22, 22, 22)
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 16)
    pdf.multi_cell(0, 8, TITLE)
    pdf.ln(3)
    pdf.set_font("Helvetica", "", 11)
    pdf.multi_cell(0, 6, INTRO)
    for heading, paragraphs in SECTIONS:
        pdf.ln(4)
        depth = heading.split(" ", 1)[0].count(".")
        pdf.set_font("Helvetica", "B", 13 if depth == 0 else 12)
        pdf.multi_cell(0, 7, heading)
        pdf.ln(1)
        pdf.set_font("Helvetica", "", 11)
        for paragraph in paragraphs:
            pdf.multi_cell(0, 6, paragraph)
            pdf.ln(2)
    return bytes(pdf.output())


def main() -> None:
    OUT.write_bytes(build())
    print(f"wrote {OUT.name}")


if __name__ == "__main__":
    main()
