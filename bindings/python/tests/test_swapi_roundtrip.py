"""The SWAPI round trip: for each example query of testdata/swapi, the network document that
normcache makes is executed by graphql-core over a small generated Star Wars dataset, the
result is written, and reading the operation back gives exactly what the server would have
answered to the user's own query.

Needs graphql-core (pip install graphql-core) and the shared test data; skipped without them.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional

import pytest

import normcache

graphql = pytest.importorskip("graphql")


def _swapi_folder() -> Optional[Path]:
    """testdata/swapi, in the shared folder or in a checkout above this file."""
    candidates = [Path("/work/shared/testdata/swapi")]
    candidates += [folder / "testdata" / "swapi" for folder in Path(__file__).resolve().parents]
    return next((folder for folder in candidates if (folder / "schema.graphql").is_file()), None)


SWAPI = _swapi_folder()
if SWAPI is None:
    pytest.skip("testdata/swapi is not available", allow_module_level=True)

SDL = (SWAPI / "schema.graphql").read_text()
#: What the cache is given: the SWAPI schema, with every Node keyed by its id.
CACHE_SDL = SDL + '\nextend interface Node @typePolicy(keyFields: "id")\n'
QUERIES = sorted(SWAPI.glob("0*.graphql"))

# --- the generated dataset -------------------------------------------------------------


def _global_id(kind: str, number: int) -> str:
    """A Relay global id as SWAPI makes them: base64 of "kind:number"."""
    return base64.b64encode(f"{kind}:{number}".encode()).decode()


def _cursor(offset: int) -> str:
    return base64.b64encode(f"arrayconnection:{offset}".encode()).decode()


def _offset(cursor: str) -> int:
    return int(base64.b64decode(cursor).decode().split(":")[1])


def _connection(items: List[Dict[str, Any]], plural: str) -> Callable[..., Dict[str, Any]]:
    """A resolver of a Relay connection over `items` (after/first/before/last), with edges,
    pageInfo, totalCount and the plural shortcut list."""

    def resolve(
        info: Any,
        after: Optional[str] = None,
        first: Optional[int] = None,
        before: Optional[str] = None,
        last: Optional[int] = None,
    ) -> Dict[str, Any]:
        start, end = 0, len(items)
        if after is not None:
            start = max(start, _offset(after) + 1)
        if before is not None:
            end = min(end, _offset(before))
        if first is not None:
            end = min(end, start + first)
        if last is not None:
            start = max(start, end - last)
        window = items[start:end]
        edges = [{"node": item, "cursor": _cursor(start + index)} for index, item in enumerate(window)]
        return {
            "edges": edges,
            "pageInfo": {
                "hasNextPage": end < len(items),
                "hasPreviousPage": start > 0,
                "startCursor": edges[0]["cursor"] if edges else None,
                "endCursor": edges[-1]["cursor"] if edges else None,
            },
            "totalCount": len(items),
            plural: window,
        }

    return resolve


PLANET_NAMES = ["Tatooine", "Alderaan", "Yavin IV", "Hoth", "Dagobah", "Bespin", "Endor", "Naboo", "Kamino"]
PEOPLE = [
    # name, gender, homeworld (planet number or None), starships (numbers)
    ("Luke Skywalker", "male", 1, [12, 22]),
    ("C-3PO", "n/a", 1, []),
    ("R2-D2", "n/a", 8, []),
    ("Darth Vader", "male", 1, [13]),
    ("Leia Organa", "female", 2, []),
    ("Owen Lars", "male", 1, []),
    ("Beru Whitesun Lars", "female", 1, []),
    ("R5-D4", "n/a", None, []),
    ("Biggs Darklighter", "male", 1, [12]),
    ("Obi-Wan Kenobi", "male", None, [48, 59, 64]),
    ("Padmé Amidala", "female", 8, [39, 49, 64]),
    ("Han Solo", "male", None, [10, 22]),
    ("Chewbacca", "male", 9, [10, 22]),
    ("Lando Calrissian", "male", 6, [10]),
]
STARSHIPS = [
    # number, name, model, manufacturers, cost in credits (None: unknown)
    (2, "CR90 corvette", "CR90 corvette", ["Corellian Engineering Corporation"], 3500000.0),
    (3, "Star Destroyer", "Imperial I-class Star Destroyer", ["Kuat Drive Yards"], 150000000.0),
    (5, "Sentinel-class landing craft", "Sentinel-class landing craft", ["Sienar Fleet Systems", "Cyngus Spaceworks"], 240000.0),
    (9, "Death Star", "DS-1 Orbital Battle Station", ["Imperial Department of Military Research", "Sienar Fleet Systems"], 1000000000000.0),
    (10, "Millennium Falcon", "YT-1300 light freighter", ["Corellian Engineering Corporation"], 100000.0),
    (12, "X-wing", "T-65 X-wing", ["Incom Corporation"], 149999.5),
    (13, "TIE Advanced x1", "Twin Ion Engine Advanced x1", ["Sienar Fleet Systems"], None),
    (22, "Imperial shuttle", "Lambda-class T-4a shuttle", ["Sienar Fleet Systems"], 240000.0),
    (39, "Naboo fighter", "N-1 starfighter", ["Theed Palace Space Vessel Engineering Corps", None], 200000.0),
    (48, "Jedi starfighter", "Delta-7 Aethersprite-class interceptor", [], 180000.0),
    (49, "H-type Nubian yacht", "H-type Nubian yacht", ["Theed Palace Space Vessel Engineering Corps"], None),
    (59, "Trade Federation cruiser", "Providence-class carrier/destroyer", ["Rendili StarDrive, Free Dac Volunteers Engineering corps."], 125000000.0),
    (64, "Naboo star skiff", "J-type star skiff", ["Theed Palace Space Vessel Engineering Corps/Nubia Star Drives, Incorporated"], None),
]
FILMS = [
    ("A New Hope", 4, [1, 2, 3, 4, 5, 12, 13], [1, 2, 3]),
    ("The Empire Strikes Back", 5, [1, 2, 3, 4, 5, 12, 13, 14], [4, 5, 6]),
    ("Return of the Jedi", 6, [1, 2, 3, 4, 5, 12, 13, 14], [1, 7]),
    ("The Phantom Menace", 1, [2, 3, 10, 11], [1, 8]),
]
SPECIES = [("Human", "mammal", [1, 4, 5, 6, 7, 9, 10, 11, 12, 14], 9), ("Droid", "artificial", [2, 3, 8], None), ("Wookie", "mammal", [13], 9)]
VEHICLES = [("Sand Crawler", "Digger Crawler", []), ("Snowspeeder", "t-47 airspeeder", [1]), ("Imperial Speeder Bike", "74-Z speeder bike", [])]


def _dataset() -> Dict[str, Any]:
    """The root value: Root's fields as resolvers over a deterministic dataset in which
    people, planets, films, starships, species and vehicles refer to one another."""
    planets = {
        number: {
            "__typename": "Planet",
            "id": _global_id("planets", number),
            "name": name,
            "diameter": 4000 + 1111 * number,
            "rotationPeriod": 20 + number,
            "orbitalPeriod": 300 + 7 * number,
            "gravity": f"{number % 3 + 1} standard",
            "population": float(10 ** (number + 3)),
            "climates": ["arid"] if number == 1 else ["temperate", "murky"][: number % 2 + 1],
            "terrains": ["desert"] if number == 1 else ["grasslands", "mountains"],
            "surfaceWater": float(number * 8),
            "created": f"2014-12-{number:02d}T12:00:00.000000Z",
            "edited": "2014-12-20T20:58:18.411000Z",
        }
        for number, name in enumerate(PLANET_NAMES, start=1)
    }
    people = {
        number: {
            "__typename": "Person",
            "id": _global_id("people", number),
            "name": name,
            "birthYear": f"{number * 3}BBY",
            "eyeColor": ["blue", "yellow", "red", "brown"][number % 4],
            "gender": gender,
            "hairColor": ["blond", "none", "brown", "black"][number % 4],
            "height": 150 + number * 3,
            "mass": 40.5 + number,
            "skinColor": "fair",
            "homeworld": planets.get(world) if world else None,
            "created": f"2014-12-{number:02d}T15:10:51.357000Z",
            "edited": "2014-12-20T21:17:56.891000Z",
        }
        for number, (name, gender, world, _) in enumerate(PEOPLE, start=1)
    }
    starships = {
        number: {
            "__typename": "Starship",
            "id": _global_id("starships", number),
            "name": name,
            "model": model,
            "starshipClass": "starfighter" if cost and cost < 250000 else "capital ship",
            "manufacturers": makers,
            "costInCredits": cost,
            "length": 12.5 + number,
            "crew": str(number * 5),
            "passengers": str(number * 2),
            "maxAtmospheringSpeed": None if number == 9 else 1000 + number,
            "hyperdriveRating": 1.0 + number / 10,
            "MGLT": 60 + number,
            "cargoCapacity": float(number * 1000),
            "consumables": f"{number} months",
            "created": "2014-12-10T14:20:33.369000Z",
            "edited": "2014-12-20T21:23:49.867000Z",
        }
        for number, name, model, makers, cost in STARSHIPS
    }
    films = {
        number: {
            "__typename": "Film",
            "id": _global_id("films", number),
            "title": title,
            "episodeID": episode,
            "openingCrawl": f"Episode {episode}\r\n\"{title}\"\r\nIt is a period of civil war.",
            "director": "George Lucas",
            "producers": ["Gary Kurtz", "Rick McCallum"],
            "releaseDate": f"19{76 + number}-05-25",
            "created": "2014-12-10T14:23:31.880000Z",
            "edited": "2014-12-20T19:49:45.256000Z",
        }
        for number, (title, episode, _, _) in enumerate(FILMS, start=1)
    }
    species = {
        number: {
            "__typename": "Species",
            "id": _global_id("species", number),
            "name": name,
            "classification": classification,
            "designation": "sentient",
            "averageHeight": 180.0,
            "averageLifespan": None if name == "Droid" else 120,
            "eyeColors": ["brown", "blue"],
            "hairColors": None if name == "Droid" else ["black"],
            "skinColors": ["caucasian"],
            "language": "Galactic Basic",
            "homeworld": planets.get(world) if world else None,
            "created": "2014-12-10T13:52:11.567000Z",
            "edited": "2014-12-20T21:36:42.136000Z",
        }
        for number, (name, classification, _, world) in enumerate(SPECIES, start=1)
    }
    vehicles = {
        number: {
            "__typename": "Vehicle",
            "id": _global_id("vehicles", number),
            "name": name,
            "model": model,
            "vehicleClass": "wheeled",
            "manufacturers": ["Corellia Mining Corporation"],
            "costInCredits": 150000.0,
            "length": 36.8,
            "crew": "46",
            "passengers": "30",
            "maxAtmospheringSpeed": 30,
            "cargoCapacity": 50000.0,
            "consumables": "2 months",
            "created": "2014-12-10T15:36:25.724000Z",
            "edited": "2014-12-20T21:30:21.661000Z",
        }
        for number, (name, model, _) in enumerate(VEHICLES, start=1)
    }

    # The relations, both ways.
    def pick(table: Dict[int, Dict[str, Any]], numbers: List[int]) -> List[Dict[str, Any]]:
        return [table[number] for number in numbers]

    pilots: Dict[int, List[int]] = {number: [] for number in starships}
    for person, (_, _, _, ships) in enumerate(PEOPLE, start=1):
        people[person]["starshipConnection"] = _connection(pick(starships, ships), "starships")
        for ship in ships:
            pilots[ship].append(person)
    for ship, flyers in pilots.items():
        starships[ship]["pilotConnection"] = _connection(pick(people, flyers), "pilots")
    film_people = {number: characters for number, (_, _, characters, _) in enumerate(FILMS, start=1)}
    film_planets = {number: worlds for number, (_, _, _, worlds) in enumerate(FILMS, start=1)}
    ship_numbers = sorted(starships)
    film_ships = {number: ship_numbers[number - 1 :: 3] for number in films}
    for number, film in films.items():
        film["characterConnection"] = _connection(pick(people, film_people[number]), "characters")
        film["planetConnection"] = _connection(pick(planets, film_planets[number]), "planets")
        film["starshipConnection"] = _connection(pick(starships, film_ships[number]), "starships")
        film["speciesConnection"] = _connection(list(species.values()), "species")
        film["vehicleConnection"] = _connection(list(vehicles.values())[: number % 3 + 1], "vehicles")

    def films_where(test: Callable[[int], bool]) -> Callable[..., Dict[str, Any]]:
        return _connection([film for number, film in films.items() if test(number)], "films")

    for number, person in people.items():
        person["filmConnection"] = films_where(lambda film, number=number: number in film_people[film])
        person["species"] = next(
            (species[kind] for kind, (_, _, members, _) in enumerate(SPECIES, start=1) if number in members), None
        )
        person["vehicleConnection"] = _connection(
            [vehicles[v] for v, (_, _, drivers) in enumerate(VEHICLES, start=1) if number in drivers], "vehicles"
        )
    for number, planet in planets.items():
        residents = [person for person in people.values() if person["homeworld"] is planet]
        planet["residentConnection"] = _connection(residents, "residents")
        planet["filmConnection"] = films_where(lambda film, number=number: number in film_planets[film])
    for number, ship in starships.items():
        ship["filmConnection"] = films_where(lambda film, number=number: number in film_ships[film])
    for number, kind in species.items():
        kind["personConnection"] = _connection(pick(people, SPECIES[number - 1][2]), "people")
        kind["filmConnection"] = films_where(lambda film: True)
    for number, vehicle in vehicles.items():
        vehicle["pilotConnection"] = _connection(pick(people, VEHICLES[number - 1][2]), "pilots")
        vehicle["filmConnection"] = films_where(lambda film, number=number: number <= film)

    def lookup(table: Dict[int, Dict[str, Any]], kind: str) -> Callable[..., Optional[Dict[str, Any]]]:
        by_id = {entity["id"]: entity for entity in table.values()}

        def resolve(info: Any, id: Optional[str] = None, **numbered: Optional[str]) -> Optional[Dict[str, Any]]:
            if id is not None:
                return by_id.get(id)
            number = next((value for value in numbered.values() if value is not None), None)
            return table.get(int(number)) if number is not None and str(number).isdigit() else None

        return resolve

    nodes = {
        entity["id"]: entity
        for table in (people, planets, films, species, starships, vehicles)
        for entity in table.values()
    }
    return {
        "allFilms": _connection(list(films.values()), "films"),
        "film": lookup(films, "films"),
        "allPeople": _connection(list(people.values()), "people"),
        "person": lookup(people, "people"),
        "allPlanets": _connection(list(planets.values()), "planets"),
        "planet": lookup(planets, "planets"),
        "allSpecies": _connection(list(species.values()), "species"),
        "species": lookup(species, "species"),
        "allStarships": _connection(list(starships.values()), "starships"),
        "starship": lookup(starships, "starships"),
        "allVehicles": _connection(list(vehicles.values()), "vehicles"),
        "vehicle": lookup(vehicles, "vehicles"),
        "node": lambda info, id: nodes.get(id),
    }


SERVER_SCHEMA = graphql.build_schema(SDL)
ROOT = _dataset()


def execute(document: str) -> Dict[str, Any]:
    """What the generated SWAPI server answers to `document`: its data, with no errors."""
    result = graphql.graphql_sync(SERVER_SCHEMA, document, root_value=ROOT)
    assert result.errors is None, [str(error) for error in result.errors or []]
    assert result.data is not None
    return result.data


@pytest.fixture
def swapi_cache(tmp_path: Path) -> Iterator[normcache.Cache]:
    """A cache with the SWAPI schema, Nodes keyed by id."""
    with normcache.Cache(tmp_path / "swapi.cache", schema=CACHE_SDL) as cache:
        yield cache


def _round_trip(cache: normcache.Cache, query: str) -> Dict[str, Any]:
    """Prepare `query`, serve its network document, write the answer; return what the server
    answers to the user's own query."""
    with cache.prepare(query) as op:
        served = execute(op.document)
        cache.write(op, {"data": served})
    return execute(query)


# --- the property ----------------------------------------------------------------------


def test_the_dataset_serves_every_example_query() -> None:
    assert [path.name for path in QUERIES] == [
        "01_basic_query.graphql",
        "02_nested_fields.graphql",
        "03_nested_fields.graphql",
        "04_all_starships.graphql",
        "05_argument.graphql",
        "06_fragments.graphql",
        "07_fragments.graphql",
        "08_introspection.graphql",
    ]
    vader = execute((SWAPI / "03_nested_fields.graphql").read_text())["person"]
    assert vader["name"] == "Darth Vader" and vader["homeworld"] == {"name": "Tatooine"}
    assert [edge["node"]["manufacturers"] for edge in vader["starshipConnection"]["edges"]] == [["Sienar Fleet Systems"]]
    ships = execute((SWAPI / "05_argument.graphql").read_text())["allStarships"]["edges"]
    assert len(ships) == 7
    assert any(edge["node"]["pilotConnection"]["edges"] == [] for edge in ships)
    assert any(
        pilot["node"]["homeworld"] is None for edge in ships for pilot in edge["node"]["pilotConnection"]["edges"]
    )


@pytest.mark.parametrize("query_file", QUERIES, ids=lambda path: path.stem)
def test_reading_back_gives_what_the_server_answers(swapi_cache: normcache.Cache, query_file: Path) -> None:
    query = query_file.read_text()
    with swapi_cache.prepare(query) as op:
        document = op.document
        assert "__typename" in document
        served = execute(document)  # the network document is valid SWAPI and runs
        swapi_cache.write(op, {"data": served})
        expected = execute(query)
        assert swapi_cache.read(op) == expected
        # The text too: compact, in selection order, every leaf as the server wrote it.
        assert swapi_cache.read_json(op) == json.dumps(expected, ensure_ascii=False, separators=(",", ":"))


@pytest.mark.parametrize("query_file", QUERIES, ids=lambda path: path.stem)
def test_a_second_identical_write_changes_nothing(swapi_cache: normcache.Cache, query_file: Path) -> None:
    query = query_file.read_text()
    with swapi_cache.prepare(query) as op:
        served = {"data": execute(op.document)}
        assert swapi_cache.write(op, served) != []
        assert swapi_cache.write(op, json.dumps(served)) == []


def test_every_example_reads_back_from_one_shared_cache(swapi_cache: normcache.Cache) -> None:
    expected = {path.stem: _round_trip(swapi_cache, path.read_text()) for path in QUERIES}
    for path in QUERIES:
        with swapi_cache.prepare(path.read_text()) as op:
            assert swapi_cache.read(op) == expected[path.stem], path.stem


def test_entities_are_keyed_by_their_node_id(swapi_cache: normcache.Cache) -> None:
    _round_trip(swapi_cache, (SWAPI / "03_nested_fields.graphql").read_text())
    vader = _global_id("people", 4)
    record = swapi_cache.get(f"Person:{vader}")
    assert record is not None
    assert record["name"] == "Darth Vader" and record["id"] == vader and record["__typename"] == "Person"
    assert record["homeworld"] == {"$reference": f"Planet:{_global_id('planets', 1)}"}
    assert swapi_cache.get("QUERY_ROOT") == {"person(personID:4)": {"$reference": f"Person:{vader}"}}
    _round_trip(swapi_cache, (SWAPI / "04_all_starships.graphql").read_text())
    assert swapi_cache.search("Starship:") == sorted(f"Starship:{_global_id('starships', n)}" for n, *_ in STARSHIPS)


def test_fragments_read_what_plain_fields_wrote(swapi_cache: normcache.Cache) -> None:
    expected = _round_trip(swapi_cache, (SWAPI / "05_argument.graphql").read_text())
    for name in ("06_fragments.graphql", "07_fragments.graphql"):
        with swapi_cache.prepare((SWAPI / name).read_text()) as op:
            assert swapi_cache.read(op) == expected, name


def test_a_field_never_written_is_missed_at_its_path(swapi_cache: normcache.Cache) -> None:
    _round_trip(swapi_cache, (SWAPI / "02_nested_fields.graphql").read_text())
    with swapi_cache.prepare("{ person(personID: 4) { name gender birthYear homeworld { name } } }") as op:
        with pytest.raises(normcache.CacheMiss) as miss:
            swapi_cache.read(op)
        assert miss.value.missing == [["person", "birthYear"]]
        assert miss.value.data is None
        with pytest.raises(normcache.CacheMiss) as partial:
            swapi_cache.read(op, partial=True)
        assert partial.value.missing == [["person", "birthYear"]]
        assert partial.value.data == {
            "person": {"name": "Darth Vader", "gender": "male", "birthYear": None, "homeworld": {"name": "Tatooine"}}
        }


def test_a_page_never_written_is_missed_at_its_path(swapi_cache: normcache.Cache) -> None:
    _round_trip(swapi_cache, (SWAPI / "05_argument.graphql").read_text())
    with swapi_cache.prepare("{ allStarships(first: 7) { totalCount edges { node { name } } } allPeople { totalCount } }") as op:
        with pytest.raises(normcache.CacheMiss) as miss:
            swapi_cache.read(op)
    assert sorted(map(json.dumps, miss.value.missing)) == sorted(
        map(json.dumps, [["allStarships", "totalCount"], ["allPeople"]])
    )
    with swapi_cache.prepare("{ allStarships(first: 8) { edges { node { name } } } }") as op:
        with pytest.raises(normcache.CacheMiss) as miss:
            swapi_cache.read(op)
    assert miss.value.missing == [["allStarships"]]
