"""Intent classification: language identification, the forbidden-action lexicon, cues, and the combination."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from alicorn.models.intent.classifier import IntentClassifier, IntentLabel
from alicorn.models.intent.cues import asks_for_a_fact, kind_cue
from alicorn.models.intent.embed import Example, NearestExamples, cosine, embed
from alicorn.models.intent.forbidden import forbidden_actions, forbidden_effects, read_actions
from alicorn.models.intent.langid import identify
from alicorn.models.providers.scripted import ScriptedProvider
from alicorn.models.recorder import ModelClient
from tests.models.support import profile

BENCH = Path(__file__).parents[2] / "bench" / "data" / "utterances.jsonl"
SEEDS = [json.loads(line) for line in BENCH.read_text(encoding="utf-8").splitlines() if '"seed-' in line]


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Prepare the report", "en"),
        ("Przygotuj raport", "pl"),
        ("nie wysylaj tego do klienta", "pl"),  # Polish without diacritics
        ("Подготовь отчёт", "ru"),
        ("Підготуй звіт і надішли його", "other"),  # Ukrainian
        ("12345 !!!", "other"),
        # Latin-script languages Core does not read are not English with unknown words
        ("Bitte erstelle drei Varianten des Dienstplans für Dezember, veröffentliche nichts", "other"),
        ("Prépare trois variantes du planning de décembre, ne publie rien", "other"),
        ("Prepara tres variantes del horario de diciembre, no publiques nada", "other"),
        ("Připrav tři varianty rozpisu směn na prosinec, nic nezveřejňuj", "other"),
        # a borrowed word or a name with their letters leaves English and Polish what they are
        ("Prepare three variants of the schedule at the café, do not publish", "en"),
        ("Send it to Jürgen and Zoë please", "en"),
        ("Zrób grafik dla Jürgena, wyślij je do niego", "pl"),
        ("wyslij im to i nie publikuj ich planu", "pl"),
    ],
)
def test_language(text: str, language: str) -> None:
    assert identify(text).language == language


@pytest.mark.parametrize("row", SEEDS, ids=[r["id"] for r in SEEDS])
def test_the_seed_commands_in_three_languages(row: dict[str, object]) -> None:
    result = IntentClassifier().classify(str(row["text"]))
    assert (result.kind, result.language, list(result.forbidden)) == (row["kind"], row["language"], row["forbidden"])


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        ("Don't publish it or email it to anyone.", ["external_transmission", "publication"]),
        ("nie opublikujesz tego, prawda? Nie wysyłać niczego!", ["external_transmission", "publication"]),
        ("Ничего не отправлять и не выкладывать.", ["external_transmission", "publication"]),
        ("Przed wdrożeniem zatrzymaj się i zapytaj.", ["installation"]),
        ("Ask me before sending anything.", ["external_transmission"]),
        ("Спроси меня перед установкой.", ["installation"]),
        ("without publishing the changes", ["publication"]),
        ("bez publikacji", ["publication"]),
        ("Don't open the gate.", ["physical"]),
        ("Nie wyłączaj ogrzewania.", ["physical"]),
        ("Do not delete any files.", ["local_write"]),
        # descriptions, not prohibitions
        ("He did not send the report.", []),
        ("Он не отправил письмо.", []),
        ("Nie wysłał maila.", []),
        ("База данных не отвечает.", []),
        ("Publish the schedule.", []),
        ("Send nothing to the client.", ["external_transmission"]),
    ],
)
def test_forbidden_actions(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == effects


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Every Monday, send me the alarm summary.", "process"),
        ("Codziennie rano sprawdzaj logi.", "process"),
        ("Пожар в серверной!", "alarm"),
        ("Analyse yesterday's camera alarms.", "task"),
        ("Thanks, great work!", "conversation"),
        ("Could you draft the minutes?", "task"),
        ("Why is the build slow?", "question"),
        ("Czy grafik jest gotowy?", "question"),
    ],
)
def test_cues(text: str, kind: str) -> None:
    cue = kind_cue(text)
    assert cue is not None and cue.kind == kind


def test_nearest_examples() -> None:
    examples = NearestExamples(
        [Example("the server is down", "alarm", "en"), Example("hello friend", "conversation", "en")]
    )
    kind, share, similarity, _ = examples.vote("the database server is down!")
    assert kind == "alarm" and similarity > 0.3 and share > 0.5
    assert cosine(embed("abc"), embed("abc")) == pytest.approx(1.0)


def test_the_model_decides_only_when_signals_are_silent_and_disagreements_are_recorded() -> None:
    answer = json.dumps({"kind": "alarm", "language": "en", "forbidden": ["physical", "publication"]})
    client = ModelClient(profile(), ScriptedProvider([answer]))
    result = IntentClassifier(client, schema="list").classify("Prepare the report and do not publish it.")
    assert (result.kind, result.forbidden) == ("task", ("publication",))
    assert result.decided_by == {"language": "langid", "forbidden": "lexicon", "kind": "rules"}
    by_signal = {(s.field, s.signal): s.value for s in result.signals}
    assert by_signal[("kind", "model")] == "alarm" and by_signal[("forbidden", "model")] == ["physical", "publication"]
    assert result.model is not None and result.model.valid_first_try


def test_a_model_that_never_answers_validly_leaves_the_deterministic_signals() -> None:
    client = ModelClient(
        profile(), ScriptedProvider(['{"kind": "task", "language": "en", "forbidden": ["a","a"]}'] * 3)
    )
    result = IntentClassifier(client, schema="list").classify("Prepare the report.")
    assert (
        result.model is not None
        and result.model.label is None
        and "StructuredOutputError" in (result.model.error or "")
    )
    assert result.kind == "task" and result.decided_by["kind"] == "rules"


def test_label_schema_is_bounded() -> None:
    schema = IntentLabel.model_json_schema()["properties"]["forbidden"]
    assert schema["maxItems"] == 3 and schema["uniqueItems"] is True
    with pytest.raises(ValueError, match="each forbidden effect once"):
        IntentLabel.model_validate({"kind": "task", "language": "en", "forbidden": ["physical", "physical"]})


def test_flags_schema_cannot_repeat_items_and_maps_back_to_a_label() -> None:
    flags = {"publication": True, "external_transmission": False, "installation": False, "physical": False}
    answer = json.dumps({"kind": "task", "language": "pl", "forbidden": {**flags, "local_write": True}})
    provider = ScriptedProvider([answer])
    result = IntentClassifier(ModelClient(profile(), provider)).classify("Przygotuj notatkę.")
    assert result.model is not None and result.model.label is not None
    assert result.model.label.forbidden == ["publication", "local_write"]
    schema = provider.requests[0].json_schema or {}
    assert "ForbiddenFlags" in json.dumps(schema)


def test_flags_may_forbid_every_effect_without_crashing() -> None:
    every = dict.fromkeys(["publication", "external_transmission", "installation", "physical", "local_write"], True)
    answer = json.dumps({"kind": "task", "language": "en", "forbidden": every})
    result = IntentClassifier(ModelClient(profile(), ScriptedProvider([answer]))).classify("Prepare it.")
    assert result.model is not None and result.model.label is not None and len(result.model.label.forbidden) == 5
    assert result.forbidden == ()  # the lexicon decides; the model's flags are only recorded


# --- prohibitions read from the sentence's structure --------------------------------------------------------------

P, T, I, L = "publication", "external_transmission", "installation", "local_write"  # noqa: E741


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        # plain negation
        ("Do not publish the roster.", [P]),
        ("Nie publikuj grafiku.", [P]),
        ("Не публикуй расписание.", [P]),
        ("Собери демо отдельно и не ставь её.", [I]),
        ("Niczego nie usuwaj z katalogu.", [L]),
        # postponement and deferral
        ("Publish the roster later, not now.", [P]),
        ("Write the reply and hold off on sending it.", [T]),
        ("Put off the announcement.", [P]),
        ("Wstrzymaj się z wysyłką raportu.", [T]),
        ("Opublikuj grafik później.", [P]),
        ("Отложи отправку письма.", [T]),
        ("Пока не отправляй отчёт.", [T]),
        ("Подожди с публикацией.", [P]),
        # not this time, not yet
        ("Draft the post, but not this time: don't publish it.", [P]),
        ("Tym razem nie wysyłaj notatki.", [T]),
        ("На этот раз не публикуй заметку.", [P]),
        ("Don't deploy it yet.", [I]),
        ("Jeszcze nie wdrażaj tej wersji.", [I]),
        ("Send it? Not yet.", [T]),
        # conditions
        ("Publish it only after I say so.", [P]),
        ("Send the minutes only once I approve them.", [T]),
        ("Don't install the build until I confirm.", [I]),
        ("Wait until I confirm, then deploy it.", [I]),
        ("Wyślij notatkę dopiero jak powiem.", [T]),
        ("Zainstaluj pakiet dopiero po mojej zgodzie.", [I]),
        ("Отправь письмо только после моего подтверждения.", [T]),
        ("Опубликуй график, только когда я скажу.", [P]),
        # stop-before
        ("Stop before installation.", [I]),
        ("Zatrzymaj się przed publikacją.", [P]),
        ("Остановись перед отправкой.", [T]),
    ],
)
def test_prohibitions_come_in_many_forms(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == effects


@pytest.mark.parametrize(
    "text",
    [
        # a reminder to do it
        "Don't forget to send the report to Olga.",
        "Remember to publish the roster.",
        "Nie zapomnij wysłać notatki.",
        "Pamiętaj, żeby opublikować grafik.",
        "Не забудь отправить отчёт.",
        "Don't hesitate to email the supplier.",
        "Nie wahaj się wysłać oferty.",
        "Не стесняйся позвонить клиенту.",
        # a negated prohibition (a negation cancels a negation)
        "You don't have to hold off on publishing.",
        "There is no reason not to send it.",
        "No need to wait with the deployment.",
        "Nie musisz wstrzymywać publikacji.",
        "Nie ma powodu, żeby nie wysłać raportu.",
        "Не нужно откладывать отправку.",
        "Нет причин не выкладывать заметку.",
        # a description of what happened
        "The report was not sent.",
        "Nothing was published yesterday.",
        "Nie wysłano raportu.",
        "Notatka nie została wysłana.",
        "Отчёт не был отправлен.",
        "Он так и не отправил письмо.",
        # a question whether it was done
        "Did we not publish it?",
        "Have you not sent the invoice?",
        "Czy nie wysłaliśmy już notatki?",
        "Разве мы не отправили счёт клиенту?",
        # an affirmative condition is no gate when nobody is asked ("when the tests pass")
        "Create the demo candidate and install it when the tests pass.",
    ],
)
def test_what_is_not_a_prohibition(text: str) -> None:
    assert forbidden_effects(text) == []


@pytest.mark.parametrize(
    ("text", "trigger", "word"),
    [
        ("Write the reply and hold off on sending it.", "hold off", "sending"),
        ("Publish it later, not now.", "not now (elliptic)", "publish"),
        ("Publish it later, not now.", "later (deferred)", "publish"),
        ("Wyślij notatkę dopiero jak powiem.", "dopiero (condition)", "wyślij"),
        ("Отправь письмо только после моего подтверждения.", "только после (condition)", "отправь"),
        ("Nigdy niczego nie usuwaj.", "nigdy … niczego … nie", "usuwaj"),
    ],
)
def test_every_finding_keeps_its_words(text: str, trigger: str, word: str) -> None:
    found = [(f.trigger, f.word) for f in forbidden_actions(text)]
    assert (trigger, word) in found


@pytest.mark.parametrize(
    ("text", "trigger"),
    [
        ("Don't forget to send the report to Olga.", "don't … forget"),
        ("Nie musisz wstrzymywać publikacji.", "nie … wstrzymywać"),
        ("Нет причин не выкладывать заметку.", "нет … не"),
    ],
)
def test_a_lifted_reading_is_recorded_not_forbidden(text: str, trigger: str) -> None:
    lifted = [r for r in read_actions(text) if not r.forbids]
    assert [r.trigger for r in lifted] == [trigger]
    result = IntentClassifier().classify(text)
    assert result.forbidden == ()
    signal = next(s for s in result.signals if s.signal == "lexicon(lifted)")
    assert trigger in signal.evidence


def test_the_classification_records_the_forbidding_words() -> None:
    result = IntentClassifier().classify("Przygotuj grafik, ale wstrzymaj się z publikacją, dopóki nie sprawdzę.")
    assert result.forbidden == ("publication",)
    lexicon = next(s for s in result.signals if s.signal == "lexicon")
    assert lexicon.evidence.startswith("wstrzymaj → publikacją")


# --- kinds: negated imperatives, urgency -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Nie publikuj jeszcze grafiku.", "task"),
        ("Не публикуй пока график.", "task"),
        ("Don't forget to send the report to Olga.", "task"),
        ("Tomorrow prepare the roster for June.", "task"),
        ("Wydajność spadła, sprawdź logi serwera.", "task"),
        ("We need two roster variants for June.", "task"),
    ],
)
def test_requests_that_open_with_a_negation_or_a_phrase(text: str, kind: str) -> None:
    assert IntentClassifier().classify(text).kind == kind


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # an emergency that names no alarm
        ("Someone is kicking in the door of the garage!", "alarm"),
        ("Gas is leaking in the boiler room.", "alarm"),
        ("There is smoke in the corridor.", "alarm"),
        ("Ktoś wyłamuje drzwi do garażu!", "alarm"),
        ("Z rury w kuchni tryska woda.", "alarm"),
        ("Кто-то взламывает дверь гаража!", "alarm"),
        ("Из трубы на кухне хлещет вода.", "alarm"),
        ("В коридоре дым.", "alarm"),
        # a report that all went well
        ("All quiet tonight, no alarms.", "conversation"),
        ("No smoke, everything is fine.", "conversation"),
        ("Dyżur spokojny, żadnych alarmów.", "conversation"),
        ("Всё спокойно, тревог не было.", "conversation"),
        # past alarms to analyse: a task; a question about one: a question
        ("Review last night's smoke alarms and drop the duplicates.", "task"),
        ("Przeanalizuj wczorajsze alarmy pożarowe.", "task"),
        ("Разбери вчерашние тревоги датчиков дыма.", "task"),
        ("Was there smoke in the kitchen yesterday?", "question"),
        # no emergency: someone merely waiting
        ("Someone is waiting at reception.", "conversation"),
    ],
)
def test_urgency_is_read_from_the_situation(text: str, kind: str) -> None:
    assert IntentClassifier().classify(text).kind == kind


# --- recurrence -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "cron"),
    [
        ("Every Tuesday at 9:30 prepare the duty roster.", "30 9 * * 2"),
        ("Each evening summarise the door alarms.", "0 18 * * *"),
        ("Check the queue every 4 hours.", "0 */4 * * *"),
        ("Send me the backlog weekly.", "0 0 * * 1"),
        ("Co wtorek o 9:30 przygotuj grafik dyżurów.", "30 9 * * 2"),
        ("Codziennie wieczorem podsumuj alarmy drzwi.", "0 18 * * *"),
        ("Co tydzień wysyłaj mi zaległości.", "0 0 * * 1"),
        ("Каждый вторник в 9:30 готовь график дежурств.", "30 9 * * 2"),
        ("Ежедневно вечером своди тревоги дверей.", "0 18 * * *"),
        ("Раз в неделю присылай мне список задач.", "0 0 * * 1"),
    ],
)
def test_a_recurring_request_is_a_process_with_its_schedule(text: str, cron: str) -> None:
    result = IntentClassifier().classify(text)
    assert result.kind == "process" and result.decided_by["kind"] == "recurrence"
    assert result.recurrence is not None and result.recurrence.cron == cron
    assert result.decided_by["recurrence"] == "recurrence"
    kind = next(s for s in result.signals if s.field == "kind" and s.signal == "recurrence")
    assert kind.value == "process" and kind.evidence == result.recurrence.words
    dumped = result.model_dump(mode="json")
    assert json.loads(json.dumps(dumped))["recurrence"]["cron"] == cron


@pytest.mark.parametrize(
    "text",
    [
        "On Tuesday prepare the duty roster.",
        "We wtorek przygotuj grafik dyżurów.",
        "Во вторник составь график дежурств.",
        "Prepare the daily report.",
    ],
)
def test_a_one_off_with_a_date_is_not_recurring(text: str) -> None:
    result = IntentClassifier().classify(text)
    assert result.kind == "task" and result.recurrence is None
    assert result.model_dump(mode="json")["recurrence"] is None
    assert "recurrence" not in result.decided_by


def test_a_question_about_a_schedule_stays_a_question() -> None:
    result = IntentClassifier().classify("What do we send every Monday?")
    assert result.kind == "question" and result.recurrence is None


# --- a negated necessity after its action, motion verbs of sending, devices, informal requests ------------------

PH = "physical"


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        # a negated necessity after the action it governs forbids it
        ("Uploading the logs is not needed.", [T]),
        ("Announcing it isn't necessary yet.", [P]),
        ("No need to forward it to the vendor.", [T]),
        ("Aktualizować serwera na razie nie trzeba.", [I]),
        ("Udostępniać tego dokumentu nie wolno.", [T]),
        ("Ogłaszać wyników jeszcze nie należy.", [P]),
        ("Переустанавливать драйверы сейчас не надо.", [I]),
        ("Рассылать приглашения не стоит.", [T]),
        ("Письмо клиенту пересылать пока не нужно.", [T]),
        ("Удалять старые записи не требуется.", [L]),
        # … unless what it governs is itself a negative operator: two negations lift it
        ("Delaying the rollout is not necessary.", []),
        ("Odkładać wysyłki nie trzeba.", []),
        ("Задерживать публикацию не нужно.", []),
        ("Nie trzeba czekać z wysyłką.", []),
        ("Не нужно ждать с отправкой.", []),
        # … and a question asks
        ("Czy wysyłać nie trzeba?", []),
    ],
)
def test_a_negated_necessity_after_its_action_forbids_it(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == effects


@pytest.mark.parametrize(
    ("text", "trigger"),
    [
        ("Delaying the rollout is not necessary.", "no … delaying"),
        ("Odkładać wysyłki nie trzeba.", "nie … odkładać"),
        ("Задерживать публикацию не нужно.", "не … задерживать"),
    ],
)
def test_a_postposed_necessity_over_a_negative_operator_is_recorded_as_lifted(text: str, trigger: str) -> None:
    assert [r.trigger for r in read_actions(text) if not r.forbids] == [trigger]


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        # a motion verb says the message leaves: sent; when it goes to everyone, sent to them or put up for them
        ("Please wait for my go-ahead before anything goes out to the vendor.", [T]),
        ("Nothing goes out to all employees until I've approved it.", [T, P]),
        ("It doesn't need to go out today.", [T]),
        ("Zanim coś wyjdzie do dostawcy, zaczekaj na mój sygnał.", [T]),
        ("Nic nie wychodzi do pracowników, dopóki tego nie zatwierdzę.", [T, P]),
        ("Дождись моего ответа, прежде чем что-нибудь уйдёт заказчику.", [T]),
        ("Пока я не проверю, ничего не уходит всему персоналу.", [T, P]),
        ("Ничего не уходит клиентам без моего одобрения.", [T]),
        # no prohibition: affirmative, idiomatic, a description, a gate nobody negates
        ("The newsletter goes out on Friday.", []),
        ("Nothing went out yesterday.", []),
        ("Z tego nic nie wyjdzie.", []),
        ("Письма не уходят клиентам.", []),
        ("Отправляй напоминания, пока я не скажу стоп.", []),
        ("Send it without my approval.", []),
    ],
)
def test_a_motion_verb_of_sending_is_a_transmission(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == effects


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        # operating a device, named by the device
        ("Don't activate the sprinklers or shut the valves.", [PH]),
        ("Do not touch the boiler in the basement.", [PH]),
        ("Nie załączaj pompy i nie blokuj szlabanu.", [PH]),
        ("Nie ruszaj zaworu w piwnicy.", [PH]),
        ("Не запускай насос и не запирай ворота.", [PH]),
        ("Не крути клапан на котле.", [PH]),
        # a list after a negated command goes on forbidding
        ("Don't touch any hardware: no relays and no locking the gates.", [PH]),
        ("Niczego nie przełączaj: żadnych przekaźników ani zamków.", [PH]),
        ("Ничего не трогай на объекте: никаких котлов и реле.", [PH]),
        ("Do nothing physically on site.", [PH]),
        # no prohibition: a calm report, a worry, a description, a file
        ("Noc spokojna: żadnych syren.", []),
        ("Nic się nie działo: żadnych syren.", []),
        ("Don't worry about the gate, I'll handle it.", []),
        ("Не волнуйся за котёл, я разберусь.", []),
        ("No lights were on in the hall.", []),
        ("Załącz plik do raportu.", []),
    ],
)
def test_a_device_in_a_negated_command_is_physical(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == effects


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # terse or informal requests
        ("invoice summary for q3 pls", "task"),
        ("can u poke at the failing job and try a couple of fixes", "task"),
        ("spin up a staging box for the demo", "task"),
        ("lista dyżurów na kwiecień, proszę", "task"),
        ("ogarnij faktury z marca", "task"),
        ("sprawdź no, czemu drukarka nie drukuje", "task"),
        ("распиши смены на неделю", "task"),
        ("запиши номер поставщика", "task"),
        ("глянь, что с принтером", "task"),
        ("список дежурств на май, пожалуйста", "task"),
        # a crime that just happened, with no alarm word
        ("Someone just forced open the back gate.", "alarm"),
        ("Ktoś przed chwilą wyważył drzwi do biura.", "alarm"),
        ("Кто-то только что вскрыл замок на складе.", "alarm"),
        ("Someone just asked me to break down the report.", "conversation"),
        ("Ktoś włamał się do garażu w zeszłym tygodniu, przejrzyj nagrania.", "task"),
        # a question, then "explain": still a question; asking what to buy
        ("What is a VLAN? Explain it briefly.", "question"),
        ("Co to jest VLAN? Wytłumacz.", "question"),
        ("Что такое VLAN? Поясни.", "question"),
        ("Why is the build slow? Test two hypotheses.", "task"),
        ("Which printer should we buy for the office?", "question"),
        ("Którą drukarkę powinniśmy kupić do biura?", "question"),
        ("Какой принтер нам купить в офис?", "question"),
        # a noun that ends like an imperative
        ("Ключи от гаража лежат на столе.", "conversation"),
    ],
)
def test_informal_requests_live_crimes_and_questions(text: str, kind: str) -> None:
    assert IntentClassifier().classify(text).kind == kind


@pytest.mark.parametrize("text", ["Люди ждут у входа.", "Задачи на сегодня готовы.", "День прошёл без проблем."])
def test_a_noun_that_ends_like_an_imperative_is_no_request(text: str) -> None:
    cue = kind_cue(text)
    assert cue is None or cue.kind != "task"


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        # 1. a holding verb, an action or a message as object, an "until" after it: deferred
        ("Hold the deployment until the tests pass.", ["installation"]),
        ("Keep the invitation till Friday, please.", [T]),
        ("Przytrzymaj publikację do poniedziałku.", [P]),
        ("Придержи рассылку до моего сигнала.", [T]),
        # 2. idioms of keeping something private: no one else is to have it, so it is neither sent nor published
        ("Please keep this to yourselves.", [T, P]),
        ("This stays between you and me.", [T, P]),
        ("Zostaw to w tajemnicy.", [T, P]),
        ("Nikomu tego nie pokazuj.", [T]),
        ("Держи это в тайне.", [T, P]),
        ("Don't tell anyone about the offer.", [T]),
        # 3. touching or editing a data object in a negated or "without" clause
        ("Do it without editing the database.", ["local_write"]),
        ("Nie zmieniaj tabeli w bazie.", ["local_write"]),
        ("Таблицу не меняй.", ["local_write"]),
        # 4. the action fronted before a negative verb
        ("With the deployment, hold off until Monday.", ["installation"]),
        ("Z wysyłką wstrzymaj się do piątku.", [T]),
        ("С отправкой отчёта подожди до завтра.", [T]),
        # 5. an outbound message declared not needed
        ("Wiadomość do klienta jest zbędna.", [T]),
        ("Отчёт клиенту не нужен.", [T]),
        ("A summary to the board is not needed.", [T]),
        # counterparts: nothing is forbidden
        ("Keep sending reminders until I say stop.", []),
        ("Hold the door until the courier arrives.", []),
        ("Trzymaj drzwi do końca spotkania.", []),
        ("Держи отчёт коротким.", []),
        ("Keep a copy for the archive.", []),
        ("The meeting between us and the vendor is at 5.", []),
        ("Zachowaj kopię dla archiwum.", []),
        ("Trzymaj paszport przy sobie.", []),
        ("Оставь копию для архива.", []),
        ("Tell everyone about the offer.", []),
        ("Edit the spreadsheet and save it.", []),
        ("Nikt nie ruszał pliku.", []),
        ("Файл никто не трогал.", []),
        ("Nie ruszaj kotła.", [PH]),
        ("With the installation done, wait for Tom.", []),
        ("Z instalacją wszystko w porządku.", []),
        ("С публикацией всё хорошо.", []),
        ("A report is needed by Friday.", []),
        ("Is a letter to the client not needed?", []),
        ("Raport do piątku nie jest potrzebny.", []),
        ("Ответ клиенту нужен сегодня.", []),
    ],
)
def test_prohibitions_read_from_structure(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == effects


# --- prohibitions without a negation scope over the action (models/intent/prohibitive.py) ----------------------

X, C = "physical", "code_execution"


@pytest.mark.parametrize(
    ("text", "effects"),
    [
        # running code: its own class, physical only with a device near
        ("Fix the bugs in cleanup.py, but please do not execute the script.", [C]),
        ("Explain what seed_db.sh does; running it is not needed.", [C]),
        ("Przeanalizuj skrypt i nie wykonuj go.", [C]),
        ("Nic nie uruchamiaj na serwerze.", [C]),
        ("Не выполняй этот скрипт, просто объясни его.", [C]),
        ("Ничего не запускай на проде.", [C]),
        ("Don't start the sirens.", [X]),
        # delegation to oneself: the person keeps that effect
        ("I'll send the summary to the client myself.", [T]),
        ("Let me do the sending myself.", [T]),
        ("Sam wyślę to klientowi.", [T]),
        ("Rozsyłkę zrobię sam, ty tylko przygotuj listę.", [T]),
        ("Клиенту отправлю сам.", [T]),
        ("Публиковать буду сама.", [P]),
        ("Leave the publishing to me.", [P]),
        ("Wysyłkę zostaw mnie.", [T]),
        ("Рассылку оставь мне.", [T]),
        # a state kept: the class of what is named
        ("Leave the thermostat settings as they are and just report the readings.", [X]),
        ("The intranet page stays as it is for now.", [P]),
        ("Leave production alone, we only need the analysis.", [I]),
        ("Drzwi i zamki mają zostać tak, jak są.", [X]),
        ("Stronę zostaw bez zmian.", [P]),
        ("Arkusz ma zostać bez zmian.", [L]),
        ("Котёл оставь в покое, просто посмотри журнал.", [X]),
        ("Таблицу оставь как есть.", [L]),
        # a device not to be handled, named before the negated verb, or a negated stop
        ("Don't switch off the freezers while you look at the data.", [X]),
        ("Wentylatory zostaw w spokoju.", [X]),
        ("Nie wyłączaj pomp.", [X]),
        ("Насосы не отключай.", [X]),
        ("Сайт пока не трогай.", [P]),
        # confinement; the speaker as the only reader publishes nothing either
        ("This is for internal use only.", [T]),
        ("Keep it internal.", [T]),
        ("To tylko dla mnie.", [P, T]),
        ("Только для внутреннего использования.", [T]),
        # draft only: an announcement is neither sent nor published, a reply only not sent
        ("Draft only, please.", [P, T]),
        ("Это пока только черновик.", [P, T]),
        ("Napisz odpowiedź do klienta, ale tylko jako szkic.", [T]),
        # a deferral after the action it defers
        ("Deployment can wait until next week.", [I]),
        ("The rollout will wait for the audit.", [I]),
        ("Wdrożenie poczeka do poniedziałku.", [I]),
        ("Обновление на сервере подождёт до понедельника.", [I]),
        ("Объявление придержи до решения директора.", [P]),
        # approval conditions
        ("Post it on the intranet once I give the green light.", [P]),
        ("Wyślij zespołowi, jak dam znać.", [T]),
        ("Перешли команде, когда я скажу.", [T]),
        # a venue refused; a placement on a venue or in a group's chat is a publication; an update on a server
        # an installation; a condition before the action it gates
        ("Not on the website yet.", [P]),
        ("Don't post it in the team chat.", [P]),
        ("Nie wrzucaj tego na czat.", [P]),
        ("Don't update the app on the server yet.", [I]),
        ("Только после согласования с директором публикуй.", [P]),
        ("Keep it in-house.", [T]),
        ("Nothing leaves the building.", [T]),
        ("Przygotuj ogłoszenie, ale na stronę jeszcze nie wrzucaj.", [P]),
    ],
)
def test_prohibitions_said_without_a_negated_action(text: str, effects: list[str]) -> None:
    assert forbidden_effects(text) == sorted(effects)


@pytest.mark.parametrize(
    "text",
    [
        "Run the migration script on staging and tell me the result.",
        "Uruchom testy i pokaż wynik.",
        "Запусти тесты и покажи результат.",
        "Did the script run last night?",
        "Wdrożenie się wczoraj nie uruchomiło.",
        "Деплой вчера не запустился, выясни почему.",
        "Sam raport zrób krótki.",
        "Сам отчёт сделай короче.",
        "I'll be at the office myself tomorrow, send the plan to Tom.",
        "Leave me a note when the build is done.",
        "Zostaw komentarz w pliku.",
        "Оставь комментарий в документе.",
        "Prepare a summary of the internal audit and send it to the board.",
        "Our internal wiki has the procedure; summarise it.",
        "Write it up as a draft and then send it to Ann.",
        "Post the rota on the board when it's done.",
        "Wywieś grafik, kiedy będzie gotowy.",
        "Повесь график на доску, когда будет готов.",
        "Send the invoice when the client asks for it.",
        "Install it when the tests pass.",
        "Keep sending reminders until I say stop.",
        "Nie musisz czekać na moją zgodę, wyślij notatkę wszystkim.",
        "Ждать меня не нужно, разошли протокол всем участникам.",
        "С установкой тянуть не нужно: если тесты зелёные, ставь.",
        "Don't worry about the lock, just send the report.",
        "Ask our in-house lawyer and send the summary to Ann.",
        "Build the demo, and if the tests pass go ahead and install it.",
        "Leave the building by 6 and send me the report.",
        "Не учитывай выходные и отправь отчёт.",
    ],
)
def test_what_only_looks_like_those_forms_forbids_nothing(text: str) -> None:
    assert forbidden_effects(text) == []


@pytest.mark.parametrize(
    ("text", "trigger"),
    [
        ("I'll publish the final one myself.", "myself (kept by the speaker)"),
        ("Leave the pumps as they are.", "leave … as they are (kept)"),
        ("Замки не трогай.", "не трогай (left as it is)"),
        ("It's for my eyes only.", "for my eyes only (confined)"),
        ("Только черновик.", "только черновик (draft only: unsent)"),
        ("Wdrożenie poczeka.", "poczeka (deferred after)"),
        ("Share it once I give you the go-ahead.", "once … (approval)"),
        ("Not yet on the website.", "not on (venue)"),
    ],
)
def test_each_form_records_its_words(text: str, trigger: str) -> None:
    assert trigger in [f.trigger for f in forbidden_actions(text)]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("My colleague fainted at her desk and is not breathing properly!", "alarm"),
        ("A visitor just collapsed in the lobby and isn't responding, help", "alarm"),
        ("Pani z księgowości zasłabła i nie reaguje.", "alarm"),
        ("Охраннику стало плохо, он без сознания.", "alarm"),
        ("Someone is inside the closed warehouse, I can see him on camera.", "alarm"),
        ("Ktoś jest w środku zamkniętego sklepu.", "alarm"),
        # instructions about an emergency, a past one, a calm report: no alarm
        ("Write a first-aid training plan about what to do when someone collapses.", "task"),
        ("Napisz instrukcję, co robić, gdy ktoś straci przytomność.", "task"),
        ("Составь памятку, что делать, если человек без сознания.", "task"),
        ("Yesterday a visitor fainted; write an incident note for the file.", "task"),
        ("The drill went fine, nobody fainted.", "conversation"),
    ],
)
def test_a_person_in_danger_is_an_alarm_without_an_alarm_word(text: str, kind: str) -> None:
    assert IntentClassifier().classify(text).kind == kind


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("Didn't we already publish the roster for May?", True),
        ("What's the difference between a sandbox build and a release?", True),
        ("Czy wysłaliśmy już protokół?", True),
        ("Czym się różni wersja demo od kandydata?", True),
        ("Опубликовали ли мы график?", True),
        ("Чем отличается демо от релиза?", True),
        ("Which of last night's alarms need a human?", False),
        ("Can you put together a rota for March?", False),
        ("Czy możesz przygotować grafik?", False),
        ("Какие тревоги требуют человека?", False),
    ],
)
def test_a_question_for_a_fact_is_told_apart_from_one_asking_for_work(text: str, fact: bool) -> None:
    assert asks_for_a_fact(text) is fact


@pytest.mark.parametrize("text", ["", " ", "\n\t  \n"])
def test_empty_text_gives_no_cue_and_classifies_without_failing(text: str) -> None:
    assert kind_cue(text) is None
    assert IntentClassifier().classify(text).kind in ("conversation", "question", "task", "process", "alarm")
