"""A small multilingual retrieval set (English, Polish, Russian) and the function that scores an embedder on it.

60 passages (20 per language, one topic each: an organisation's operational facts mixed with general knowledge)
and 90 queries: 60 in the passage's own language, paraphrased so that few words are shared, and 30 across
languages (Polish queries for English passages, Russian for Polish, English for Russian). Written for Alicorn;
every passage is the one right answer to its queries. `evaluate` embeds the passages as documents and the
queries as queries, ranks all 60 passages by cosine for each query and reports recall@1/5/10 and MRR@10.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alicorn.memory.embedders import Embedder

PASSAGES: dict[str, str] = {
    "e01": "The night shift at the Gdańsk warehouse starts at 22:00 and ends at 06:00; at least three forklift "
    "operators must be on duty.",
    "e02": "Camera 7 in the north parking lot produces false motion alarms whenever the wind moves the tree "
    "branches near the fence.",
    "e03": "Render times doubled after the upgrade to driver version 551, because shader caching was disabled by "
    "default.",
    "e04": "Anna Kowalska is on vacation from 3 to 14 March and cannot be scheduled for any shift during that period.",
    "e05": "Backups of the accounting database run every night at 02:30 and are kept for 35 days on the NAS in "
    "room 12.",
    "e06": "To reset the badge reader at the main entrance, hold the service button for ten seconds until the LED "
    "blinks blue.",
    "e07": "The coffee machine on the second floor is descaled every Friday afternoon by the facilities team.",
    "e08": "Customer invoices must be approved by two people when the amount exceeds 10,000 euro.",
    "e09": "The staging server is rebuilt from a clean image every Monday morning, so files left there are lost.",
    "e10": "Dogs are allowed in the office only on Wednesdays and must stay out of the kitchen area.",
    "e11": "Mount Everest, the highest mountain on Earth, rises 8,849 metres above sea level.",
    "e12": "Photosynthesis lets plants turn sunlight, water and carbon dioxide into sugar and oxygen.",
    "e13": "The Great Fire of London in 1666 destroyed more than thirteen thousand houses.",
    "e14": "Boil eggs for about nine minutes if you want the yolk to be completely firm.",
    "e15": "The project deadline for the new mobile app was moved to the end of September after the client changed "
    "the requirements.",
    "e16": "Our VPN drops connections that stay idle for more than thirty minutes.",
    "e17": "Bees communicate the direction of flowers to each other with a waggle dance.",
    "e18": "The fire alarm test takes place on the first Tuesday of every month at 11 in the morning.",
    "e19": "Printer paper and toner are ordered through the procurement portal, not by email.",
    "e20": "Marek prefers to receive the weekly report as a PDF attachment rather than a link.",
    "p01": "Zmiana poranna w magazynie w Poznaniu zaczyna się o szóstej rano i wymaga co najmniej dwóch magazynierów.",
    "p02": "Kamera numer 3 przy bramie wjazdowej wysyła fałszywe alarmy, gdy w nocy przejeżdżają obok niej "
    "ciężarówki z włączonymi reflektorami.",
    "p03": "Serwer poczty firmowej jest restartowany w każdą niedzielę o północy, co trwa około piętnastu minut.",
    "p04": "Tomasz Nowak przebywa na urlopie rodzicielskim do końca czerwca.",
    "p05": "Faktury od dostawców należy wprowadzać do systemu w ciągu trzech dni roboczych od ich otrzymania.",
    "p06": "Hasło do sieci Wi-Fi dla gości zmienia się pierwszego dnia każdego miesiąca i jest wywieszone w recepcji.",
    "p07": "Klimatyzacja w serwerowni powinna utrzymywać temperaturę między 18 a 22 stopniami Celsjusza.",
    "p08": "Spotkanie zarządu odbywa się w każdy czwartek o 9:00 w sali konferencyjnej na trzecim piętrze.",
    "p09": "Nowi pracownicy muszą ukończyć szkolenie BHP przed pierwszym dniem pracy na hali produkcyjnej.",
    "p10": "Parking dla rowerów znajduje się za budynkiem B, obok wejścia dla dostaw.",
    "p11": "Wisła jest najdłuższą rzeką w Polsce i ma ponad tysiąc kilometrów długości.",
    "p12": "Maria Skłodowska-Curie jako pierwsza osoba otrzymała dwie Nagrody Nobla w różnych dziedzinach nauki.",
    "p13": "Pierogi ruskie przygotowuje się z nadzieniem z ziemniaków, twarogu i smażonej cebuli.",
    "p14": "Bitwa pod Grunwaldem rozegrała się w 1410 roku między wojskami polsko-litewskimi a zakonem krzyżackim.",
    "p15": "Aby przyspieszyć kompilację projektu, włącz pamięć podręczną budowania i równoległe zadania.",
    "p16": "Zgłoszenia awarii sprzętu należy wysyłać przez system helpdesk, a nie telefonicznie.",
    "p17": "Grafik dyżurów na lipiec musi uwzględniać, że w weekendy pracuje maksymalnie jedna osoba z działu IT.",
    "p18": "Kawa i herbata w kuchni są bezpłatne dla wszystkich pracowników i gości.",
    "p19": "Raport kwartalny sprzedaży przygotowuje dział finansów do dziesiątego dnia po zakończeniu kwartału.",
    "p20": "Mleko należy przechowywać w lodówce i zużyć w ciągu kilku dni od otwarcia.",
    "r01": "Ночная смена на складе в Казани начинается в 23:00, и на ней должны работать не менее четырёх грузчиков.",
    "r02": "Камера 12 на крыше даёт ложные тревоги, когда на объектив садятся птицы.",
    "r03": "После обновления базы данных отчёты стали формироваться в три раза медленнее из-за отсутствия индекса.",
    "r04": "Ольга Иванова в отпуске с 1 по 20 августа, замещает её Сергей Петров.",
    "r05": "Пароль от учётной записи нужно менять каждые девяносто дней.",
    "r06": "Чтобы включить проектор в переговорной, сначала нажмите кнопку питания на пульте, а затем выберите "
    "вход HDMI.",
    "r07": "Уборка офиса проводится по вторникам и пятницам после шести вечера.",
    "r08": "Командировочные расходы возмещаются только при наличии оригиналов чеков.",
    "r09": "Тестовый стенд недоступен по средам с 10 до 12 из-за планового обслуживания.",
    "r10": "Курение на территории предприятия разрешено только в специально отведённом месте у ворот.",
    "r11": "Байкал — самое глубокое озеро в мире, его глубина превышает 1600 метров.",
    "r12": "Юрий Гагарин стал первым человеком, совершившим полёт в космос, в 1961 году.",
    "r13": "Для борща нужны свёкла, капуста, картофель, морковь и лук.",
    "r14": "Транссибирская магистраль соединяет Москву и Владивосток и имеет длину более девяти тысяч километров.",
    "r15": "Если сборка падает с ошибкой нехватки памяти, уменьшите число параллельных потоков компилятора.",
    "r16": "Новые ноутбуки выдаются сотрудникам только после подписания акта приёма-передачи.",
    "r17": "График отпусков на следующий год необходимо согласовать с руководителем до 15 декабря.",
    "r18": "Огнетушители в здании проверяются раз в полгода.",
    "r19": "Резервная копия почтового сервера хранится в облаке в течение одного года.",
    "r20": "Кошки спят в среднем от двенадцати до шестнадцати часов в сутки.",
}

# (group, query, the passage that answers it). Groups: en, pl, ru (same language); pl>en, ru>pl, en>ru (the query's
# language > the passage's).
QUERIES: tuple[tuple[str, str, str], ...] = (
    ("en", "when does the overnight shift in the Gdańsk depot begin and how many forklift drivers are needed", "e01"),
    ("en", "why does the north car park camera keep raising alerts for no reason", "e02"),
    ("en", "what caused rendering to become twice as slow after the graphics driver update", "e03"),
    ("en", "when is Anna Kowalska away on holiday", "e04"),
    ("en", "how long do we keep nightly copies of the finance database", "e05"),
    ("en", "the door card scanner at the front entrance is stuck, how do I restart it", "e06"),
    ("en", "who cleans the limescale from the coffee maker and when", "e07"),
    ("en", "how many approvals does a large customer bill need", "e08"),
    ("en", "will my files survive on the test server over the weekend", "e09"),
    ("en", "can I bring my pet to work", "e10"),
    ("en", "how tall is the world's highest peak", "e11"),
    ("en", "how do green plants make food from light", "e12"),
    ("en", "how many homes burned in the 17th century London blaze", "e13"),
    ("en", "how long should I cook an egg to get a hard yolk", "e14"),
    ("en", "why was the phone application release postponed", "e15"),
    ("en", "my remote access tunnel disconnects when I am inactive", "e16"),
    ("en", "how do honeybees tell the hive where nectar is", "e17"),
    ("en", "when do we check the smoke alarms each month", "e18"),
    ("en", "how should I request new ink cartridges and paper", "e19"),
    ("en", "in what format does Marek want the weekly summary", "e20"),
    ("pl", "o której zaczyna się pierwsza zmiana w poznańskim magazynie", "p01"),
    ("pl", "dlaczego kamera przy wjeździe zgłasza nieprawdziwe alarmy w nocy", "p02"),
    ("pl", "kiedy serwer mailowy jest niedostępny z powodu ponownego uruchomienia", "p03"),
    ("pl", "do kiedy Tomasz jest nieobecny", "p04"),
    ("pl", "ile mam czasu na zaksięgowanie rachunku od dostawcy", "p05"),
    ("pl", "gdzie znajdę aktualne hasło do internetu bezprzewodowego dla odwiedzających", "p06"),
    ("pl", "jaka temperatura powinna być w pomieszczeniu z serwerami", "p07"),
    ("pl", "kiedy i gdzie zbiera się zarząd", "p08"),
    ("pl", "jakie szkolenie musi przejść nowa osoba zanim zacznie pracę w fabryce", "p09"),
    ("pl", "gdzie mogę zostawić rower", "p10"),
    ("pl", "jaka jest najdłuższa rzeka w kraju", "p11"),
    ("pl", "która uczona zdobyła Nobla dwukrotnie", "p12"),
    ("pl", "z czego robi się farsz do pierogów ruskich", "p13"),
    ("pl", "kiedy wojska polskie i litewskie pokonały Krzyżaków", "p14"),
    ("pl", "jak skrócić czas budowania kodu", "p15"),
    ("pl", "jak zgłosić zepsuty komputer", "p16"),
    ("pl", "ile osób z IT może pracować w sobotę i niedzielę w lipcu", "p17"),
    ("pl", "czy za napoje w biurze trzeba płacić", "p18"),
    ("pl", "kto i kiedy przygotowuje podsumowanie sprzedaży za kwartał", "p19"),
    ("pl", "jak długo można trzymać otwarte mleko", "p20"),
    ("ru", "во сколько начинается работа ночью на казанском складе", "r01"),
    ("ru", "почему камера на крыше срабатывает без причины", "r02"),
    ("ru", "из-за чего замедлилось построение отчётов после обновления СУБД", "r03"),
    ("ru", "кто заменяет Ольгу во время её отпуска", "r04"),
    ("ru", "как часто требуется обновлять пароль", "r05"),
    ("ru", "как запустить проектор в комнате для совещаний", "r06"),
    ("ru", "в какие дни убирают офис", "r07"),
    ("ru", "что нужно для компенсации затрат на поездку", "r08"),
    ("ru", "когда нельзя пользоваться тестовым стендом", "r09"),
    ("ru", "где можно курить на заводе", "r10"),
    ("ru", "какое озеро самое глубокое на планете", "r11"),
    ("ru", "кто первым полетел в космос", "r12"),
    ("ru", "какие овощи кладут в борщ", "r13"),
    ("ru", "какая железная дорога идёт от Москвы до Владивостока", "r14"),
    ("ru", "компиляция завершается ошибкой out of memory, что делать", "r15"),
    ("ru", "как получить новый ноутбук", "r16"),
    ("ru", "до какого числа нужно утвердить график отпусков", "r17"),
    ("ru", "как часто проверяют огнетушители", "r18"),
    ("ru", "сколько хранится бэкап почты", "r19"),
    ("ru", "сколько часов в день спит кошка", "r20"),
    ("pl>en", "dlaczego kamera na północnym parkingu włącza alarm bez powodu", "e02"),
    ("pl>en", "kiedy Anna Kowalska ma urlop", "e04"),
    ("pl>en", "jak zresetować czytnik kart przy głównym wejściu", "e06"),
    ("pl>en", "ile osób musi zatwierdzić dużą fakturę dla klienta", "e08"),
    ("pl>en", "jaka jest wysokość najwyższej góry świata", "e11"),
    ("pl>en", "jak rośliny wytwarzają cukier ze światła słonecznego", "e12"),
    ("pl>en", "ile minut gotować jajko na twardo", "e14"),
    ("pl>en", "VPN rozłącza się, gdy nic nie robię", "e16"),
    ("pl>en", "w jaki sposób pszczoły informują się o kwiatach", "e17"),
    ("pl>en", "kiedy jest comiesięczny test alarmu pożarowego", "e18"),
    ("ru>pl", "когда начинается утренняя смена на складе в Познани", "p01"),
    ("ru>pl", "до какого времени Томаш в декретном отпуске", "p04"),
    ("ru>pl", "где узнать пароль гостевого вайфая", "p06"),
    ("ru>pl", "какая температура нужна в серверной", "p07"),
    ("ru>pl", "самая длинная река Польши", "p11"),
    ("ru>pl", "кто первым получил две Нобелевские премии", "p12"),
    ("ru>pl", "начинка для вареников с картошкой и творогом", "p13"),
    ("ru>pl", "в каком году была Грюнвальдская битва", "p14"),
    ("ru>pl", "как сообщить о поломке оборудования", "p16"),
    ("ru>pl", "где хранить молоко после открытия", "p20"),
    ("en>ru", "why does the rooftop camera trigger false alarms", "r02"),
    ("en>ru", "who covers for Olga while she is on leave", "r04"),
    ("en>ru", "how often must I change my account password", "r05"),
    ("en>ru", "how do I turn on the projector in the meeting room", "r06"),
    ("en>ru", "which is the deepest lake in the world", "r11"),
    ("en>ru", "who was the first person in space", "r12"),
    ("en>ru", "what vegetables go into borscht", "r13"),
    ("en>ru", "how long is the Trans-Siberian railway", "r14"),
    ("en>ru", "the build fails with out of memory, what should I do", "r15"),
    ("en>ru", "how many hours a day do cats sleep", "r20"),
)

GROUPS = ("en", "pl", "ru", "pl>en", "ru>pl", "en>ru")


@dataclass(frozen=True)
class Score:
    """Retrieval quality over a group of queries."""

    queries: int
    recall_at_1: float
    recall_at_5: float
    recall_at_10: float
    mrr_at_10: float


def evaluate(embedder: Embedder) -> dict[str, Score]:
    """Score `embedder` on the set: one Score per group, plus `same-language`, `cross-language` and `all`."""
    ids = list(PASSAGES)
    docs = embedder.embed([PASSAGES[i] for i in ids], "document")
    queries = embedder.embed([q for _, q, _ in QUERIES], "query")
    ranks: list[tuple[str, int]] = []
    for (group, _, answer), vector in zip(QUERIES, queries, strict=True):
        order = np.argsort(-(docs @ vector), kind="stable")
        ranks.append((group, [ids[i] for i in order].index(answer) + 1))
    selections = {g: {g} for g in GROUPS}
    selections |= {"same-language": {"en", "pl", "ru"}, "cross-language": {"pl>en", "ru>pl", "en>ru"}}
    selections["all"] = set(GROUPS)
    return {name: _score([r for g, r in ranks if g in groups]) for name, groups in selections.items()}


def _score(ranks: list[int]) -> Score:
    n = len(ranks)
    return Score(
        n,
        sum(r <= 1 for r in ranks) / n,
        sum(r <= 5 for r in ranks) / n,
        sum(r <= 10 for r in ranks) / n,
        sum(1 / r for r in ranks if r <= 10) / n,
    )
