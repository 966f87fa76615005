# ruff: noqa: E501  (the data: one fact a line)
"""Writes ``tests/data/recall/dataset.json``, the recall benchmark's data set.

The facts and queries are written by hand below, by memorable keys; this
script numbers them (f001…, q001…), spreads each pair's writes over
2026-08-03 … 2026-10-24 in the order listed (so a replacement is always
written after what it replaces), and checks the result.  Edit here and run

    .venv/bin/python benchmarks/recall/build_dataset.py

rather than editing the JSON by hand (the JSON is what the runner reads).

Fact flags: ``R`` = retracted by the runner after all writes;
``>key`` = superseded by the fact ``key`` (an update chain, or the correction
of a retracted fact).  Files: ``U`` = USER.md, ``M`` = MEMORY.md,
``T`` = TOOLS.md (an agent file: no user, seen by every user of the agent).
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "tests" / "data" / "recall" / "dataset.json"
FILES = {"U": "USER.md", "M": "MEMORY.md", "T": "TOOLS.md"}
START = datetime(2026, 8, 3, 7, 0, tzinfo=UTC)
SPAN = timedelta(days=82)

# (agent, user) -> [(key, file code, text, flags...)]
PAIRS: dict[tuple[str, str | None], list[tuple[str, ...]]] = {
    ("ada", "sam"): [
        ("s_name", "U", "Sam Carter, 34, product designer; pronouns he/him."),
        ("s_works", "U", "Sam works at Northwind Labs as a senior product designer."),
        ("s_oslo", "U", "Sam lives in Oslo, in the Grünerløkka district.", ">s_bergen"),
        ("s_window", "U", "Sam prefers window seats on flights."),
        ("s_veg", "U", "Sam is vegetarian but eats fish now and then."),
        ("s_tea", "U", "Sam drinks green tea in the afternoon, no sugar."),
        ("s_meeting_tue", "M", "Sam's weekly team meeting is on Tuesdays at 09:30.", ">s_meeting_mon"),
        ("s_sister", "M", "Sam's sister Anna has her birthday on 2 November.", "R", ">s_sister_fix"),
        ("s_smokes", "M", "Sam smokes a few cigarettes on weekends.", "R"),
        ("s_marathon", "M", "Sam runs three times a week to train for the Oslo half marathon in September."),
        ("s_piano_wed", "M", "Sam started piano lessons with Ingrid on Wednesdays at 18:00.", ">s_piano_fri"),
        ("s_insurance_old", "M", "Sam's home insurance is with If, renewed every January.",
         ">s_insurance_new"),
        ("s_phone_old", "M", "Sam's phone is an iPhone 13 with a cracked screen.", ">s_phone_new"),
        ("s_dentist", "M", "Sam has a dentist appointment on 14 October at 15:00 with Dr. Haug."),
        ("s_allergy", "M", "Sam is allergic to penicillin."),
        ("s_car", "M", "Sam's car is a grey 2019 Volvo V60, registration EL 48213."),
        ("s_meeting_mon", "M", "Sam's weekly team meeting moved to Monday 10:00."),
        ("s_climbing", "M", "Sam goes bouldering at the climbing gym on Thursday evenings."),
        ("s_partner", "M", "Sam's partner Jonas works night shifts as a nurse at Haukeland hospital."),
        ("s_anniversary", "M", "Sam and Jonas celebrate their anniversary on 18 June, usually at Lysverket."),
        ("s_budget", "M", "Sam wants to keep monthly grocery spending under 6,000 NOK."),
        ("s_book", "M", "Sam is reading 'The Overstory' and wants more novels about nature."),
        ("s_podcast", "M", "Sam listens to the Hard Fork podcast on his commute."),
        ("s_ran", "M", "Sam ran the half marathon in 1:52 and wants to go under 1:45 next year."),
        ("s_bergen", "M", "Sam moved to Bergen; his new address is Nygårdsgaten 12."),
        ("s_sister_fix", "M", "Correction: Sam's sister is called Hanna, and her birthday is 2 November."),
        ("s_passport", "M", "Sam's passport expires in March 2027; renew it before the Japan trip."),
        ("s_japan", "M", "Sam is planning a two-week trip to Japan in April 2027."),
        ("s_hotel", "M", "For Tokyo Sam booked Hotel Gracery Shinjuku from 3 to 10 April."),
        ("s_cat", "M", "Sam's cat Miso needs her vaccination booster in November."),
        ("s_vet", "M", "Miso's vet is Dyreklinikken Bergen, phone 55 20 30 40."),
        ("s_meds", "M", "Sam takes 10 mg cetirizine every morning during pollen season."),
        ("s_sleep", "M", "Sam wants a reminder to put screens away by 22:30 so he sleeps better."),
        ("s_car_service", "M", "The Volvo is booked for its annual service at Bilia on 22 September."),
        ("s_piano_fri", "M", "Sam's piano lesson moved from Wednesday to Friday at 17:00."),
        ("s_mom", "M", "Sam calls his mother every Sunday evening."),
        ("s_dumplings", "M", "Sam loves the steamed dumplings at the little place by Torgallmenningen."),
        ("s_duolingo", "M", "Sam is learning Japanese on Duolingo, 15 minutes a day."),
        ("s_power", "M", "Sam's electricity contract with Fjordkraft ends on 31 December."),
        ("s_einvoice", "M", "Sam wants bills as e-invoices, never on paper."),
        ("s_insurance_new", "M", "Sam switched his home insurance to Gjensidige in October."),
        ("s_gift", "M", "Gift idea for Jonas: a Moccamaster coffee maker."),
        ("s_phone_new", "M", "Sam replaced the iPhone with a Pixel 9 in October."),
    ],
    ("max", "sam"): [
        ("ms_role", "U", "Sam leads the design team for the Atlas mobile app."),
        ("ms_hours", "U", "Sam wants no meetings before 10:00 and keeps Friday afternoons for focused work."),
        ("ms_deadline_old", "M", "Atlas 2.0 design freeze is on 15 September.", ">ms_deadline_new"),
        ("ms_standup_old", "M", "The Atlas daily standup is at 09:45 in the Fjord room.", ">ms_standup_new"),
        ("ms_manager", "M", "Sam reports to Rita Okafor, VP of Product."),
        ("ms_1on1", "M", "Sam has a one-on-one with Rita every other Thursday at 14:00."),
        ("ms_figma", "M", "The Atlas design system lives in the Figma file 'Atlas DS v3'."),
        ("ms_allhands", "M", "Sam agreed to present at the company all-hands on 5 October.", "R"),
        ("ms_hire", "M", "Sam is hiring a junior UX researcher; interviews run until 10 October."),
        ("ms_deadline_new", "M", "Atlas 2.0 design freeze was pushed to 29 September."),
        ("ms_candidate", "M", "Candidate Mei Chen did well in the portfolio review; second round on 8 October."),
        ("ms_offsite", "M", "The design team offsite is in Lisbon from 12 to 14 November."),
        ("ms_standup_new", "M", "The Atlas standup moved to 10:15 so it respects Sam's no-early-meetings rule."),
        ("ms_review", "M", "Sam's performance review is due on 30 October; he wants to highlight the "
                           "onboarding redesign."),
        ("ms_onboard", "M", "The onboarding redesign raised week-one retention from 41% to 48%."),
        ("ms_slack", "M", "Sam prefers Slack huddles to email for quick questions."),
        ("ms_expense", "M", "Sam must file the Lisbon travel expenses in Concur within 30 days."),
        ("ms_laptop", "M", "Sam's work MacBook Pro has IT ticket #4471 open for a battery swap."),
        ("ms_okr", "M", "Q4 OKR for Atlas: cut checkout drop-off by 15%."),
        ("ms_vendor", "M", "The usability testing vendor is UserLab; the contract renews in January."),
        ("ms_conference", "M", "Sam submitted a talk to the Config conference; decision expected 1 December."),
    ],
    ("ada", "lena"): [
        ("l_name", "U", "Lena Hoffmann, 41, wohnt in Freiburg, spricht Deutsch und etwas Französisch."),
        ("l_job", "U", "Lena unterrichtet Mathematik und Physik am Kepler-Gymnasium."),
        ("l_coffee_old", "U", "Lena trinkt morgens zwei Tassen Kaffee mit Hafermilch.", ">l_tea"),
        ("l_kids", "M", "Lenas Kinder heißen Felix (12) und Marie (9)."),
        ("l_vegetarian", "M", "Lena ist Vegetarierin.", "R", ">l_fleisch"),
        ("l_urlaub_old", "M", "Herbsturlaub an der Ostsee geplant, vom 27.10. bis 3.11.", ">l_urlaub_new"),
        ("l_dentist", "M", "Zahnarzttermin bei Dr. Albers am 7. Oktober um 8:30 Uhr."),
        ("l_elternabend", "M", "Elternabend in Maries Klasse am 24. September um 19 Uhr."),
        ("l_geburtstag", "M", "Felix hat am 3. November Geburtstag und wünscht sich ein Fahrrad."),
        ("l_fahrrad", "M", "Der Laden Velo Wiehre hält ein blaues Jugendrad bis Ende Oktober zurück."),
        ("l_tuev", "M", "Lenas Auto muss im November zum TÜV."),
        ("l_mutter", "M", "Lenas Mutter wohnt in Stuttgart und kommt an Weihnachten zu Besuch."),
        ("l_chor", "M", "Lena singt im Kirchenchor, geprobt wird jeden Mittwoch um 20 Uhr."),
        ("l_tea", "U", "Lena trinkt keinen Kaffee mehr, nur noch Tee."),
        ("l_kaffeemaschine", "M", "Die Kaffeemaschine ist kaputt; Lena will sie nicht mehr reparieren lassen."),
        ("l_steuer", "M", "Die Steuerberaterin Frau Yilmaz braucht alle Belege bis Ende Oktober."),
        ("l_hausrat", "M", "Lena hat die Hausratversicherung bei der HUK gekündigt."),
        ("l_hund", "M", "Der Hund Bruno bekommt Spezialfutter wegen seiner Nierenwerte."),
        ("l_tierarzt", "M", "Bruno hat am 15. Oktober um 17 Uhr einen Termin in der Praxis Dr. Weber."),
        ("l_allergie", "M", "Lena ist allergisch gegen Nüsse, besonders gegen Haselnüsse."),
        ("l_buch", "M", "Lena liest gerade 'Die Mittagsfrau' von Julia Franck."),
        ("l_tomaten", "M", "Die Tomaten im Hochbeet müssen vor dem ersten Frost geerntet werden."),
        ("l_heizung", "M", "Der Heizungsmonteur kommt am 2. Oktober zwischen 8 und 12 Uhr."),
        ("l_fleisch", "M", "Lena isst Fleisch, kauft es aber nur beim Biohof."),
        ("l_korrektur", "M", "Lena korrigiert Klassenarbeiten meistens sonntags am Nachmittag."),
        ("l_bahncard", "M", "Lenas BahnCard 50 läuft im Januar ab."),
        ("l_schwimmkurs", "M", "Marie hat dienstags Schwimmkurs im Westbad."),
        ("l_kuchen", "M", "Lena backt für das Schulfest am 26. September einen Zwetschgenkuchen."),
        ("l_urlaub_new", "M", "Der Herbsturlaub geht jetzt in den Schwarzwald statt an die Ostsee."),
        ("l_rezept", "M", "Lena braucht von Dr. Meier ein neues Rezept für ihre Schilddrüsentabletten."),
    ],
    ("iris", "lena"): [
        ("il_goal", "U", "Lena möchte bis zum Frühjahr fünf Kilo abnehmen."),
        ("il_knee", "U", "Lena hat seit einem Skiunfall Knieprobleme links; kein Joggen auf Asphalt."),
        ("il_lauf_old", "M", "Lena läuft dreimal pro Woche 5 km.", ">il_lauf_new"),
        ("il_gewicht", "M", "Gewicht am 1. September: 72,4 kg.", ">il_gewicht2"),
        ("il_schlaf", "M", "Lena schläft im Schnitt nur sechs Stunden pro Nacht; Ziel sind sieben."),
        ("il_magnesium", "M", "Lena nimmt jeden Abend Magnesium.", "R"),
        ("il_wasser", "M", "Lena vergisst oft zu trinken: an 2 Liter Wasser am Tag erinnern."),
        ("il_yoga", "M", "Lena macht samstags morgens Yoga im Studio Prana."),
        ("il_physio", "M", "Physiotherapie für das Knie: sechs Termine, immer donnerstags um 7:30 Uhr."),
        ("il_lauf_new", "M", "Wegen des Knies läuft Lena nur noch zweimal pro Woche und schwimmt einmal."),
        ("il_fruehstueck", "M", "Lena frühstückt Haferflocken mit Beeren und Joghurt."),
        ("il_ruecken", "M", "Nach langen Korrekturtagen hat Lena Rückenschmerzen."),
        ("il_schritte", "M", "Tagesziel auf dem Schrittzähler: 9.000 Schritte."),
        ("il_gewicht2", "M", "Gewicht am 1. Oktober: 71,1 kg."),
    ],
    ("ada", "priya"): [
        ("p_name", "U", "Priya Raman, 29, software engineer in London; vegan."),
        ("p_style", "U", "Priya likes to be called by her first name and wants short, direct answers."),
        ("p_flat_old", "M", "Priya shares a flat in Hackney with two flatmates.", ">p_flat_new"),
        ("p_birthday_wrong", "M", "Priya's birthday is on 21 March.", "R", ">p_birthday_fix"),
        ("p_savings_old", "M", "Priya's savings goal is £8,000 by June.", ">p_savings_new"),
        ("p_rent", "M", "Priya's rent of £1,650 is due on the 1st of each month."),
        ("p_cat_allergy", "M", "Priya is allergic to cats.", "R"),
        ("p_badminton", "M", "Priya plays badminton on Tuesday evenings at the leisure centre."),
        ("p_parents", "M", "Priya's parents live in Chennai; she calls them on Saturday mornings."),
        ("p_diwali", "M", "Priya is flying to Chennai for Diwali, leaving on 5 November."),
        ("p_flight", "M", "Priya's Diwali flight is BA35 from Heathrow; she wants an aisle seat."),
        ("p_visa", "M", "Priya's Skilled Worker visa must be extended before 30 January 2027."),
        ("p_course", "M", "Priya is taking an evening ceramics course on Wednesdays."),
        ("p_plant", "M", "Priya's monstera needs watering every Sunday."),
        ("p_book_club", "M", "Priya hosts the book club on the last Friday of the month."),
        ("p_birthday_fix", "M", "Priya's birthday is on 12 March, not 21 March."),
        ("p_dentist", "M", "Priya's dentist check-up is on 21 October at 09:00 at Smile Studio."),
        ("p_gym", "M", "Priya cancelled her PureGym membership in September."),
        ("p_bike", "M", "Priya cycles to work on a Brompton."),
        ("p_mentor", "M", "Priya mentors two junior developers through Code First Girls."),
        ("p_chai", "M", "Priya likes masala chai made with oat milk."),
        ("p_flat_new", "M", "Priya moved into a one-bedroom flat in Walthamstow on 1 October."),
        ("p_concert", "M", "Priya has tickets for Arooj Aftab at the Barbican on 19 October."),
        ("p_dinner", "M", "Priya's favourite weeknight dinner is chickpea curry with spinach."),
        ("p_savings_new", "M", "Priya raised her savings goal to £10,000 by June."),
    ],
    ("max", "priya"): [
        ("mp_role", "U", "Priya is a backend engineer on the payments team at Finch."),
        ("mp_oncall_old", "M", "Priya is on call the week of 14 September.", ">mp_oncall_new"),
        ("mp_migration", "M", "Priya leads the migration of the ledger service from MySQL to PostgreSQL."),
        ("mp_pycon", "M", "Priya will give a talk at PyCon UK.", "R"),
        ("mp_oncall_new", "M", "Priya swapped on-call with Dev and is now on call the week of 21 September."),
        ("mp_manager", "M", "Priya's manager is Dev Patel; their one-on-one is on Mondays at 11:00."),
        ("mp_incident", "M", "Incident INC-2291: duplicate refunds on 2 October; Priya owns the postmortem."),
        ("mp_cutover", "M", "The ledger migration cutover is planned for 9 November at 02:00 UTC."),
        ("mp_promo", "M", "Priya wants to go for promotion to senior engineer in the January cycle."),
        ("mp_editor", "M", "Priya works on a Linux ThinkPad and wants Vim keybindings in every editor."),
    ],
    ("max", "tom"): [
        ("t_role", "U", "Tom Becker is a freelance data analyst in Manchester with three clients."),
        ("t_style", "U", "Tom prefers bullet-point summaries and hates long emails."),
        ("t_rate_old", "M", "Tom's day rate is £450.", ">t_rate_new"),
        ("t_accountant_wrong", "M", "Tom's accountant is Gareth Lewis.", "R", ">t_tax"),
        ("t_invoice", "M", "Tom invoices Brightside Retail on the 25th of each month, net 30."),
        ("t_client_lost", "M", "Tom's contract with Harbour Logistics ends on 31 October."),
        ("t_tax", "M", "Tom's self-assessment is due on 31 January; his accountant is Gwen Morris."),
        ("t_vat", "M", "Tom registered for VAT in August; quarterly returns start in November."),
        ("t_tools", "M", "Tom works mostly in Python with pandas and builds dashboards in Power BI."),
        ("t_dbt", "M", "Tom wants to learn dbt before the new year."),
        ("t_checkin", "M", "Tom has a weekly check-in with Brightside every Wednesday at 15:00."),
        ("t_cowork", "M", "Tom rents a hot desk at Ziferblat on Tuesdays and Thursdays."),
        ("t_rate_new", "M", "Tom raised his day rate to £500 from October."),
        ("t_laptop", "M", "Tom's Dell XPS 15 battery drains fast."),
        ("t_holiday", "M", "Tom is offline from 20 to 27 December for a family trip to Cornwall."),
        ("t_pitch", "M", "Tom is pitching a churn analysis to Northwind Labs on 6 October."),
        ("t_backup", "M", "Tom backs up client data every night to an encrypted Backblaze bucket."),
        ("t_gdpr", "M", "Brightside requires all customer data to stay in the UK region."),
        ("t_late", "M", "Harbour Logistics paid the August invoice 12 days late."),
        ("t_newsletter", "M", "Tom writes a monthly newsletter on retail analytics with 820 subscribers."),
    ],
    ("iris", "omar"): [
        ("o_name", "U", "Omar Haddad, 52, lives in Toronto; type 2 diabetes diagnosed in 2024."),
        ("o_goal", "U", "Omar wants to bring his HbA1c below 6.5%."),
        ("o_meds", "M", "Omar takes metformin 500 mg twice a day with meals.", ">o_meds_new"),
        ("o_walk_old", "M", "Omar walks for 30 minutes after dinner.", ">o_walk_new"),
        ("o_smoke", "M", "Omar quit smoking in 2019.", "R"),
        ("o_a1c", "M", "Omar's HbA1c was 7.1% in August."),
        ("o_doctor", "M", "Omar's physician is Dr. Singh at the Bloor Street clinic."),
        ("o_lab", "M", "Next blood test at LifeLabs on 12 November, fasting."),
        ("o_diet", "M", "Omar is cutting back on white rice and pita and trying cauliflower rice."),
        ("o_sleep", "M", "Omar snores and is waiting for a sleep apnea study."),
        ("o_meds_new", "M", "Omar's doctor increased metformin to 1000 mg twice a day."),
        ("o_bp", "M", "Omar's blood pressure averaged 138/86 last week."),
        ("o_grandkid", "M", "Omar's granddaughter Layla visits on Sundays and they bake together."),
        ("o_walk_new", "M", "Omar now walks 45 minutes after dinner and takes the stairs at work."),
        ("o_shoes", "M", "Omar bought walking shoes with a wide toe box because of numbness in his feet."),
        ("o_feet", "M", "Remind Omar to check his feet daily for cuts; he has mild neuropathy."),
        ("o_snack", "M", "Omar's go-to snack is a handful of almonds."),
    ],
    ("ada", "yuki"): [
        ("y_name", "U", "Yuki Tanaka, 38, architect in Osaka; writes in English and Japanese."),
        ("y_lang", "U", "Yuki wants replies in English unless she writes in Japanese."),
        ("y_office_old", "M", "Yuki's office is in Umeda.", ">y_office_new"),
        ("y_sons", "M", "Yuki has two sons.", "R", ">y_daughter"),
        ("y_jp_jog", "M", "ユキさんは毎朝ジョギングをしています。"),
        ("y_jp_dentist", "M", "歯医者の予約は10月20日の午後3時です。"),
        ("y_daughter", "M", "Yuki has one daughter, Hana, who is 8."),
        ("y_jp_recital", "M", "娘さんのピアノ発表会は11月3日です。"),
        ("y_project", "M", "Yuki is designing a timber library in Nara; the competition deadline is 15 November."),
        ("y_jp_kyoto", "M", "京都の紅葉を見に行く予定は11月下旬です。"),
        ("y_sake", "M", "Yuki collects sake cups made of Bizen pottery."),
        ("y_office_new", "M", "Yuki's office moved to Nakanoshima in September."),
    ],
    ("ada", None): [
        ("a_weather", "T", "The weather tool returns Celsius; convert to Fahrenheit only when asked."),
        ("a_maps", "T", "Use the maps tool in transit mode for directions inside cities."),
        ("a_reminders", "T", "The reminders tool cannot schedule anything more than 30 days ahead."),
        ("a_email", "T", "Email drafts go to the Drafts folder; never send without confirmation."),
        ("a_currency", "T", "Exchange rates from the currency tool lag by 15 minutes."),
    ],
    ("max", None): [
        ("m_jira", "T", "The Jira tool needs the project key in capitals, e.g. ATLAS-123."),
        ("m_expense_old", "T", "The expense tool exports CSV only.", ">m_expense_new"),
        ("m_freebusy", "T", "Calendar free/busy lookups only see colleagues in the same workspace."),
        ("m_github", "T", "GitHub search through the code tool is limited to 30 requests a minute."),
        ("m_slack", "T", "Slack summaries must stay under 300 words."),
        ("m_expense_new", "T", "The expense tool can now export PDF as well as CSV."),
    ],
    ("iris", None): [
        ("i_usda", "T", "The nutrition lookup tool uses USDA data; German foods may be missing."),
        ("i_glucose_wrong", "T", "The glucose tool reads Dexcom data in real time.", "R", ">i_glucose_fix"),
        ("i_steps", "T", "Step counts sync from the phone once an hour."),
        ("i_dosage", "T", "Never suggest dosage changes; refer medication questions to the user's doctor."),
        ("i_glucose_fix", "T", "The glucose tool only imports the daily Dexcom export, not live values."),
    ],
}

# (category, agent, user, query, relevant keys, forbidden keys)
Q = tuple[str, str, str, str, list[str], list[str]]
QUERIES: list[Q] = [
    # keyword: the fact's own words
    ("keyword", "ada", "sam", "window seats", ["s_window"], []),
    ("keyword", "ada", "sam", "dentist", ["s_dentist"], []),
    ("keyword", "ada", "sam", "penicillin", ["s_allergy"], []),
    ("keyword", "ada", "sam", "Volvo", ["s_car", "s_car_service"], []),
    ("keyword", "ada", "sam", "Miso", ["s_cat", "s_vet"], []),
    ("keyword", "ada", "sam", "passport", ["s_passport"], []),
    ("keyword", "ada", "sam", "Hard Fork podcast", ["s_podcast"], []),
    ("keyword", "ada", "sam", "reminders tool", ["a_reminders"], []),
    ("keyword", "max", "sam", "Lisbon", ["ms_offsite", "ms_expense"], []),
    ("keyword", "max", "sam", "Figma", ["ms_figma"], []),
    ("keyword", "max", "sam", "Rita", ["ms_manager", "ms_1on1"], []),
    ("keyword", "ada", "priya", "badminton", ["p_badminton"], []),
    ("keyword", "ada", "priya", "monstera", ["p_plant"], []),
    ("keyword", "ada", "priya", "Diwali flight", ["p_flight"], []),
    ("keyword", "max", "priya", "ledger migration", ["mp_migration", "mp_cutover"], []),
    ("keyword", "max", "tom", "VAT", ["t_vat"], []),
    ("keyword", "max", "tom", "Power BI", ["t_tools"], []),
    ("keyword", "max", "tom", "Brightside", ["t_invoice", "t_checkin", "t_gdpr"], []),
    ("keyword", "max", "tom", "Backblaze", ["t_backup"], []),
    ("keyword", "iris", "omar", "metformin", ["o_meds_new", "o_meds"], []),
    ("keyword", "iris", "omar", "LifeLabs", ["o_lab"], []),
    ("keyword", "ada", "yuki", "Nara", ["y_project"], []),
    ("keyword", "ada", "yuki", "sake", ["y_sake"], []),
    # inflection: another form of a word the fact holds
    ("inflection", "ada", "sam", "team meetings", ["s_meeting_mon", "s_meeting_tue"], []),
    ("inflection", "ada", "sam", "teas", ["s_tea"], []),
    ("inflection", "ada", "sam", "running", ["s_marathon", "s_ran"], []),
    ("inflection", "ada", "sam", "allergies", ["s_allergy"], []),
    ("inflection", "ada", "sam", "vaccinations", ["s_cat"], []),
    ("inflection", "ada", "sam", "hotels booked", ["s_hotel"], []),
    ("inflection", "max", "sam", "interviewing", ["ms_hire"], []),
    ("inflection", "max", "sam", "reviewed portfolios", ["ms_candidate"], []),
    ("inflection", "ada", "priya", "cycling", ["p_bike"], []),
    ("inflection", "ada", "priya", "mentoring", ["p_mentor"], []),
    ("inflection", "ada", "priya", "hosting book clubs", ["p_book_club"], []),
    ("inflection", "max", "tom", "invoicing", ["t_invoice", "t_late"], []),
    ("inflection", "max", "tom", "backups", ["t_backup"], []),
    ("inflection", "iris", "omar", "walked", ["o_walk_new", "o_walk_old"], []),
    ("inflection", "iris", "omar", "snoring", ["o_sleep"], []),
    ("inflection", "max", "priya", "migrating", ["mp_migration"], []),
    ("inflection", "ada", "yuki", "collecting cups", ["y_sake"], []),
    # paraphrase_synonym: the same thing in other words
    ("paraphrase_synonym", "ada", "sam", "flight seat preference", ["s_window"], []),
    ("paraphrase_synonym", "ada", "sam", "Sam's employer", ["s_works"], []),
    ("paraphrase_synonym", "ada", "sam", "home address", ["s_bergen"], []),
    ("paraphrase_synonym", "ada", "sam", "drug allergy", ["s_allergy"], []),
    ("paraphrase_synonym", "ada", "sam", "hay fever medicine", ["s_meds"], []),
    ("paraphrase_synonym", "ada", "sam", "boyfriend's job", ["s_partner"], []),
    ("paraphrase_synonym", "ada", "sam", "bedtime routine", ["s_sleep"], []),
    ("paraphrase_synonym", "ada", "sam", "car maintenance", ["s_car_service"], []),
    ("paraphrase_synonym", "ada", "sam", "smartphone model", ["s_phone_new"], []),
    ("paraphrase_synonym", "max", "sam", "boss", ["ms_manager"], []),
    ("paraphrase_synonym", "max", "sam", "team retreat", ["ms_offsite"], []),
    ("paraphrase_synonym", "max", "sam", "computer repair", ["ms_laptop"], []),
    ("paraphrase_synonym", "max", "sam", "reimbursement for the trip", ["ms_expense"], []),
    ("paraphrase_synonym", "ada", "priya", "apartment", ["p_flat_new"], []),
    ("paraphrase_synonym", "ada", "priya", "pottery class", ["p_course"], []),
    ("paraphrase_synonym", "ada", "priya", "houseplant care", ["p_plant"], []),
    ("paraphrase_synonym", "ada", "priya", "temperature units", ["a_weather"], []),
    ("paraphrase_synonym", "max", "tom", "consulting fee", ["t_rate_new"], []),
    ("paraphrase_synonym", "max", "tom", "tax adviser", ["t_tax"], []),
    ("paraphrase_synonym", "max", "tom", "vacation", ["t_holiday"], []),
    ("paraphrase_synonym", "iris", "omar", "blood sugar", ["o_a1c", "o_goal"], []),
    ("paraphrase_synonym", "iris", "omar", "family doctor", ["o_doctor"], []),
    ("paraphrase_synonym", "iris", "omar", "footwear", ["o_shoes"], []),
    ("paraphrase_synonym", "max", "priya", "production outage", ["mp_incident"], []),
    ("paraphrase_synonym", "ada", "yuki", "workplace location", ["y_office_new"], []),
    # question: asked the way a user or the agent would
    ("question", "ada", "sam", "Where does Sam work?", ["s_works"], []),
    ("question", "ada", "sam", "What does Sam prefer when flying?", ["s_window"], []),
    ("question", "ada", "sam", "When is Sam's dentist appointment?", ["s_dentist"], []),
    ("question", "ada", "sam", "What is Sam's cat called?", ["s_cat"], []),
    ("question", "ada", "sam", "What should I get Jonas as a present?", ["s_gift"], []),
    ("question", "ada", "sam", "Which podcast does Sam listen to?", ["s_podcast"], []),
    ("question", "ada", "sam", "How much can Sam spend on food each month?", ["s_budget"], []),
    ("question", "ada", "sam", "When does Sam's passport run out?", ["s_passport"], []),
    ("question", "max", "sam", "Who is Sam's manager?", ["ms_manager"], []),
    ("question", "max", "sam", "How did the onboarding redesign perform?", ["ms_onboard"], []),
    ("question", "max", "sam", "Which conference did Sam apply to speak at?", ["ms_conference"], []),
    ("question", "ada", "priya", "When is Priya's rent due?", ["p_rent"], []),
    ("question", "ada", "priya", "What does Priya like to cook on weeknights?", ["p_dinner"], []),
    ("question", "ada", "priya", "When does Priya's visa expire?", ["p_visa"], []),
    ("question", "max", "priya", "Who owns the postmortem for the refund incident?", ["mp_incident"], []),
    ("question", "max", "tom", "How does Tom like his updates formatted?", ["t_style"], []),
    ("question", "max", "tom", "Which client is Tom losing?", ["t_client_lost"], []),
    ("question", "max", "tom", "What programming language does Tom use?", ["t_tools"], []),
    ("question", "iris", "omar", "What medication is Omar on?", ["o_meds_new"], []),
    ("question", "iris", "omar", "When is Omar's next blood test?", ["o_lab"], []),
    ("question", "iris", "omar", "What does Omar eat as a snack?", ["o_snack"], []),
    ("question", "ada", "yuki", "What is Yuki working on?", ["y_project"], []),
    # german: German queries over German facts, compounds included
    ("german", "ada", "lena", "Zahnarzt", ["l_dentist"], []),
    ("german", "ada", "lena", "Kaffee", ["l_tea", "l_coffee_old", "l_kaffeemaschine"], []),
    ("german", "ada", "lena", "Termin beim Zahnarzt", ["l_dentist"], []),
    ("german", "ada", "lena", "Wann ist der Elternabend?", ["l_elternabend"], []),
    ("german", "ada", "lena", "Geburtstag von Felix", ["l_geburtstag"], []),
    ("german", "ada", "lena", "Was wünscht sich Felix?", ["l_geburtstag"], []),
    ("german", "ada", "lena", "Tierarzt für Bruno", ["l_tierarzt"], []),
    ("german", "ada", "lena", "Allergien", ["l_allergie"], []),
    ("german", "ada", "lena", "Nussallergie", ["l_allergie"], []),
    ("german", "ada", "lena", "Heizung", ["l_heizung"], []),
    ("german", "ada", "lena", "Wo arbeitet Lena?", ["l_job"], []),
    ("german", "ada", "lena", "Chorprobe", ["l_chor"], []),
    ("german", "ada", "lena", "Steuer", ["l_steuer"], []),
    ("german", "ada", "lena", "Fahrrad für Felix", ["l_fahrrad", "l_geburtstag"], []),
    ("german", "iris", "lena", "Knie", ["il_knee", "il_physio", "il_lauf_new"], []),
    ("german", "iris", "lena", "Wie lange schläft Lena?", ["il_schlaf"], []),
    ("german", "iris", "lena", "Rücken", ["il_ruecken"], []),
    # now_vs_history: the newest fact of an update chain (the runner also
    # records whether it ranks above the fact it replaced)
    ("now_vs_history", "ada", "sam", "Where does Sam live?", ["s_bergen"], []),
    ("now_vs_history", "ada", "sam", "When is the weekly team meeting?", ["s_meeting_mon"], []),
    ("now_vs_history", "ada", "sam", "piano lesson day", ["s_piano_fri"], []),
    ("now_vs_history", "ada", "sam", "home insurance", ["s_insurance_new"], []),
    ("now_vs_history", "ada", "sam", "What phone does Sam have?", ["s_phone_new"], []),
    ("now_vs_history", "max", "sam", "Atlas 2.0 design freeze date", ["ms_deadline_new"], []),
    ("now_vs_history", "max", "sam", "standup time", ["ms_standup_new"], []),
    ("now_vs_history", "max", "sam", "expense tool export formats", ["m_expense_new"], []),
    ("now_vs_history", "ada", "lena", "Trinkt Lena Kaffee?", ["l_tea"], []),
    ("now_vs_history", "ada", "lena", "Herbsturlaub", ["l_urlaub_new"], []),
    ("now_vs_history", "iris", "lena", "aktuelles Gewicht", ["il_gewicht2"], []),
    ("now_vs_history", "iris", "lena", "Wie oft läuft Lena?", ["il_lauf_new"], []),
    ("now_vs_history", "ada", "priya", "Where does Priya live?", ["p_flat_new"], []),
    ("now_vs_history", "ada", "priya", "savings goal", ["p_savings_new"], []),
    ("now_vs_history", "max", "priya", "on-call week", ["mp_oncall_new"], []),
    ("now_vs_history", "max", "tom", "Tom's day rate", ["t_rate_new"], []),
    ("now_vs_history", "iris", "omar", "metformin dose", ["o_meds_new"], []),
    ("now_vs_history", "iris", "omar", "evening walk", ["o_walk_new"], []),
    ("now_vs_history", "ada", "yuki", "Yuki's office", ["y_office_new"], []),
    # retracted: the query targets a retracted fact, which must never appear
    ("retracted", "ada", "sam", "smoke", [], ["s_smokes"]),
    ("retracted", "ada", "sam", "sister's birthday", ["s_sister_fix"], ["s_sister"]),
    ("retracted", "max", "sam", "all-hands", [], ["ms_allhands"]),
    ("retracted", "ada", "lena", "Ist Lena Vegetarierin?", ["l_fleisch"], ["l_vegetarian"]),
    ("retracted", "iris", "lena", "Magnesium", [], ["il_magnesium"]),
    ("retracted", "ada", "priya", "cat allergy", [], ["p_cat_allergy"]),
    ("retracted", "ada", "priya", "When is Priya's birthday?", ["p_birthday_fix"], ["p_birthday_wrong"]),
    ("retracted", "max", "priya", "PyCon UK talk", [], ["mp_pycon"]),
    ("retracted", "max", "tom", "Who is Tom's accountant?", ["t_tax"], ["t_accountant_wrong"]),
    ("retracted", "iris", "omar", "smoking", [], ["o_smoke"]),
    ("retracted", "ada", "yuki", "Yuki's children", ["y_daughter"], ["y_sons"]),
    ("retracted", "iris", "omar", "live glucose readings", ["i_glucose_fix"], ["i_glucose_wrong"]),
    # other_pair: matches a fact of a pair (or agent) the searcher is not
    ("other_pair", "max", "sam", "dentist appointment", [], ["s_dentist"]),
    ("other_pair", "ada", "priya", "dentist appointment", ["p_dentist"], ["s_dentist"]),
    ("other_pair", "ada", "priya", "seat on flights", ["p_flight"], ["s_window"]),
    ("other_pair", "ada", "sam", "Lisbon offsite", [], ["ms_offsite"]),
    ("other_pair", "ada", "sam", "design freeze", [], ["ms_deadline_new", "ms_deadline_old"]),
    ("other_pair", "ada", "lena", "Knieprobleme", [], ["il_knee"]),
    ("other_pair", "iris", "lena", "Zahnarzttermin", [], ["l_dentist"]),
    ("other_pair", "max", "tom", "Northwind Labs", ["t_pitch"], ["s_works"]),
    ("other_pair", "iris", "omar", "vegan", [], ["p_name"]),
    ("other_pair", "ada", "yuki", "piano", ["y_jp_recital"], ["s_piano_fri", "s_piano_wed"]),
    ("other_pair", "max", "priya", "badminton", [], ["p_badminton"]),
    ("other_pair", "ada", "priya", "on-call rotation", [], ["mp_oncall_new", "mp_oncall_old"]),
    ("other_pair", "ada", "sam", "Jira project key", [], ["m_jira"]),
    # cjk: Japanese lines, and one asked in English
    ("cjk", "ada", "yuki", "歯医者", ["y_jp_dentist"], []),
    ("cjk", "ada", "yuki", "ジョギング", ["y_jp_jog"], []),
    ("cjk", "ada", "yuki", "紅葉", ["y_jp_kyoto"], []),
    ("cjk", "ada", "yuki", "When is Yuki's dentist appointment?", ["y_jp_dentist"], []),
]


def build() -> dict[str, object]:
    rng = random.Random(12)
    keys: dict[str, str] = {}
    facts: list[dict[str, object]] = []
    for (agent, user), rows in PAIRS.items():
        n = len(rows)
        step = SPAN / n
        for i, (key, code, text, *flags) in enumerate(rows):
            at = START + step * i + timedelta(minutes=rng.randrange(0, int(step.total_seconds() // 60)))
            at = at.replace(second=0, microsecond=0)
            fid = f"f{len(facts) + 1:03d}"
            keys[key] = fid
            sup = next((f[1:] for f in flags if f.startswith(">")), None)
            facts.append({"id": fid, "key": key, "agent": agent, "user": user, "file": FILES[code],
                          "text": text, "at": at.strftime("%Y-%m-%dT%H:%M:%SZ"),
                          "retracted": "R" in flags, "superseded_by": sup})
    for f in facts:
        if f["superseded_by"] is not None:
            f["superseded_by"] = keys[str(f["superseded_by"])]
    queries = [{"id": f"q{i + 1:03d}", "agent": agent, "user": user, "query": text, "category": cat,
                "relevant": [keys[k] for k in rel], "forbidden": [keys[k] for k in forb]}
               for i, (cat, agent, user, text, rel, forb) in enumerate(QUERIES)]
    return {
        "about": "Kairos recall benchmark (issue 12): hand-written personal-assistant memory "
                 "facts and the queries an agent would ask of them. Generated by "
                 "benchmarks/recall/build_dataset.py; run by benchmarks/recall/run.py.",
        "facts": facts,
        "queries": queries,
    }


def main() -> None:
    data = build()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    facts, queries = data["facts"], data["queries"]
    assert isinstance(facts, list) and isinstance(queries, list)
    print(f"{len(facts)} facts, {len(queries)} queries -> {OUT}")


if __name__ == "__main__":
    main()
