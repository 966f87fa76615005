"""Everyday words for one thing, in English and German: the project's glossary.

One thing a line, each way of saying it between bars (:data:`EQUIVALENTS`
here, and the lines of ``equivalents.txt`` beside this module: care, health,
home, money, school, work, travel, paperwork …).  Curated and unambiguous
only.  Search finds a note by a query in the other language with it
(:mod:`kairos.agent.synonyms`); the dream tells the same fact written in the
other language (:mod:`kairos.dream.distill.gloss`).  Both read it from here:
the services do not import each other.  Pure data; the file is read once.
"""

from __future__ import annotations

from functools import lru_cache

# One thing a line, each way of saying it between bars, English and German (an
# English phrase is often one German compound: "parents evening",
# "Elternabend").  Unlike a kind's words (GROUPS), these are looked for as
# the query's own words — "family doctor" asked of a pair that wrote
# "Hausarzt" is about the doctor, and "family" must not outweigh it because
# the word "doctor" was never written.  Curated and unambiguous only: no
# "Rezept" (a prescription, a recipe), no "Pension" (a guesthouse).
EQUIVALENTS = """
family doctor | gp | hausarzt | hausärztin
doctor | arzt | ärztin
dentist | zahnarzt | zahnärztin
blood pressure | blutdruck | bluthochdruck
hypertension | blood pressure | bluthochdruck
medication | medicine | medikament | medikamente
allergy | allergie
peanut allergy | erdnussallergie
peanut | erdnuss
hay fever | heuschnupfen
physiotherapy | physio | physiotherapie
hospital | krankenhaus
health insurance | krankenversicherung | krankenkasse
vaccination | impfung
parents evening | elternabend
homework | hausaufgaben
report card | zeugnis
daycare | kita
tax return | tax declaration | steuererklärung
tax | steuer | steuern
tax office | finanzamt
deadline | frist
debt | schulden
loan | kredit | darlehen
mortgage | hypothek
insurance | versicherung
heating | heizung
boiler | heizkessel
landlord | vermieter | vermieterin
washing machine | waschmaschine
dishwasher | spülmaschine | geschirrspüler
garden | garten
driving licence | driving license | drivers license | führerschein
passport | reisepass
grandmother | grandma | oma | großmutter
grandfather | grandpa | opa | großvater
knee | knie
back pain | rückenschmerzen
headache | kopfschmerzen
pain | schmerzen | schmerz
shoulder | schulter
ankle | knöchel | sprunggelenk
injury | injured | verletzung | verletzt
cramp | cramps | krampf | krämpfe
blood test | blood work | blutwerte | blutbild
iron | eisen
vitamin | vitamine
supplement | nahrungsergänzung
caffeine | koffein
coffee | kaffee
alcohol | alkohol
weight | gewicht
sleep | schlaf | schlafen
insomnia | schlafstörung | schlaflosigkeit
sleeping pills | schlaftabletten
tired | müde
stress | stressed | gestresst
anxiety | angst
burnout | burn-out | erschöpfung
resting heart rate | resting pulse | ruhepuls
heart rate | pulse | puls | herzfrequenz
running shoes | laufschuhe
shoes | schuhe
half marathon | halbmarathon
swimming | schwimmen
cycling | radfahren
interval | intervals | intervalle
training plan | trainingsplan
exercises | übungen
stretching | dehnen
goal | ziel
part time | part-time | teilzeit
full time | full-time | vollzeit
approved | genehmigt
rejected | abgelehnt
request | antrag
sick leave | sick note | krankmeldung | krankgeschrieben
notice period | kündigungsfrist
resignation | kündigung
contract | vertrag
salary | gehalt
pay rise | raise | gehaltserhöhung
promotion | beförderung
job interview | vorstellungsgespräch
team lead | team leader | teamleitung | teamleiter | teamleiterin
boss | chef | chefin | vorgesetzter | vorgesetzte
colleague | kollege | kollegin
invoice | rechnung
invoices | rechnungen
twice | doppelt
sent | verschickt | versendet
refund | erstattung | rückerstattung
payment | zahlung
reminder | mahnung
customer | kunde | kundin
complaint | beschwerde
escalation | eskalation
cancellation | stornierung | storno
hours | hrs | stunden
minutes | mins | minuten
week | wk | woche
weekend | wknd | wochenende
year | yr | jahr
tomorrow | tmrw | tmr
department | dept | abteilung
message | msg | nachricht
information | info
password | pw | pwd | passwort
street | str | straße
reservation | booking | buchung | reservierung
"""


@lru_cache(maxsize=1)
def lines() -> tuple[str, ...]:
    """EQUIVALENTS and the lines of ``equivalents.txt`` (a curated glossary of
    everyday life), ``#`` lines and blank ones left out."""
    from importlib.resources import files

    more = files("kairos").joinpath("equivalents.txt").read_text(encoding="utf-8")
    return tuple(line for line in (*EQUIVALENTS.strip().splitlines(), *more.splitlines())
                 if line.strip() and not line.startswith("#"))


__all__ = ["EQUIVALENTS", "lines"]
