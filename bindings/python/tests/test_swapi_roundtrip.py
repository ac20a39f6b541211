"""The Star Wars round trip: for each query of a corpus, the network document that normcache
makes is executed by graphql-core over a small generated Star Wars dataset, the result is
written, and reading the operation back gives exactly what the server answers to the user's
own query.

Two corpora, each a schema.graphql and numbered NN_*.graphql queries (with the variables of a
query, when it takes some, in NN_*.json beside it):

- starwars: the repository's own (testdata/starwars), always there, always run;
- swapi: the public SWAPI schema and its example queries, an external corpus in
  ../shared/testdata beside the checkout (or $NORMCACHE_SHARED_TESTDATA). When it is
  missing its cases are skipped with the reason, and under CI=true they fail instead.

Both are found from this file's location. Needs graphql-core (pip install graphql-core).
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path
from typing import Any, Callable

import pytest

import normcache

graphql = pytest.importorskip("graphql", reason="graphql-core is not installed (pip install graphql-core)")

#: The checkout: bindings/python/tests/<this file> is three folders below it.
REPOSITORY = Path(__file__).resolve().parents[3]
#: The external corpora: $NORMCACHE_SHARED_TESTDATA when set and not empty (point it at a
#: folder that does not exist to run as a clone with nothing beside it does), else
#: ../shared/testdata beside the checkout.
SHARED_TESTDATA = Path(os.environ.get("NORMCACHE_SHARED_TESTDATA") or REPOSITORY.parent / "shared" / "testdata")
#: Under CI=true a missing external corpus is a failure, never a skip.
IN_CI = os.environ.get("CI") == "true"


class Corpus:
    """A schema and its queries, in one folder."""

    def __init__(self, name: str, folder: Path, *, external: bool) -> None:
        self.name = name
        self.folder = folder
        self.external = external

    def __repr__(self) -> str:
        return f"Corpus({self.name!r}, {str(self.folder)!r})"

    @property
    def present(self) -> bool:
        """Whether the folder holds a schema."""
        return (self.folder / "schema.graphql").is_file()

    def require(self) -> Corpus:
        """This corpus when it is there; otherwise the test is skipped with the reason, or,
        for an external corpus under CI=true (and for the repository's own, always), fails."""
        if self.present:
            return self
        if IN_CI or not self.external:
            pytest.fail(
                f"the {'external ' if self.external else ''}corpus {self.name} is missing at {self.folder}"
                + ("; CI requires it" if self.external else ""),
                pytrace=False,
            )
        pytest.skip(
            f"the external corpus {self.name} is not at {self.folder} (put ../shared/testdata beside the "
            "checkout or set NORMCACHE_SHARED_TESTDATA; under CI=true a missing corpus fails)"
        )

    @cached_property
    def sdl(self) -> str:
        """The schema's text."""
        return (self.folder / "schema.graphql").read_text()

    @cached_property
    def cache_sdl(self) -> str:
        """What the cache is given: the schema, with every Node keyed by its id."""
        return self.sdl + '\nextend interface Node @typePolicy(keyFields: "id")\n'

    @cached_property
    def server(self) -> Any:
        """The schema as graphql-core executes it."""
        return graphql.build_schema(self.sdl)

    @cached_property
    def queries(self) -> list[Path]:
        """The numbered queries, by name."""
        return sorted(self.folder.glob("0*.graphql"))

    def variables(self, query_file: Path) -> dict[str, Any] | None:
        """The variables given with a query: NN_*.json beside it, or None."""
        given = query_file.with_suffix(".json")
        return json.loads(given.read_text()) if given.is_file() else None


STARWARS = Corpus("starwars", REPOSITORY / "testdata" / "starwars", external=False)
SWAPI = Corpus("swapi", SHARED_TESTDATA / "swapi", external=True)
CORPORA = [STARWARS, SWAPI]

#: The queries each corpus must have.
EXPECTED_QUERIES = {
    "starwars": [
        "01_fields.graphql",
        "02_nesting.graphql",
        "03_arguments.graphql",
        "04_aliases.graphql",
        "05_fragments.graphql",
        "06_variables.graphql",
        "07_relay.graphql",
    ],
    "swapi": [
        "01_basic_query.graphql",
        "02_nested_fields.graphql",
        "03_nested_fields.graphql",
        "04_all_starships.graphql",
        "05_argument.graphql",
        "06_fragments.graphql",
        "07_fragments.graphql",
        "08_introspection.graphql",
    ],
}


def _query_params() -> list[Any]:
    """(corpus, query file) for every query of every corpus that is there, and (corpus, None)
    for a corpus that is not, so that its absence is reported as a skip or a failure."""
    params: list[Any] = []
    for corpus in CORPORA:
        if corpus.present:
            params += [pytest.param(corpus, path, id=f"{corpus.name}/{path.stem}") for path in corpus.queries]
        else:
            params.append(pytest.param(corpus, None, id=f"{corpus.name}/missing"))
    return params


#: Parametrizes a test over the corpora.
over_corpora = pytest.mark.parametrize("corpus", [pytest.param(corpus, id=corpus.name) for corpus in CORPORA])
#: Parametrizes a test over every query of every corpus.
over_queries = pytest.mark.parametrize(("corpus", "query_file"), _query_params())

# --- the generated dataset -------------------------------------------------------------


def _global_id(kind: str, number: int) -> str:
    """A Relay global id as SWAPI makes them: base64 of "kind:number"."""
    return base64.b64encode(f"{kind}:{number}".encode()).decode()


def _cursor(offset: int) -> str:
    """A connection cursor as SWAPI makes them: base64 of "arrayconnection:offset"."""
    return base64.b64encode(f"arrayconnection:{offset}".encode()).decode()


def _offset(cursor: str) -> int:
    """The offset a cursor stands for."""
    return int(base64.b64decode(cursor).decode().split(":")[1])


def _connection(items: list[dict[str, Any]], plural: str) -> Callable[..., dict[str, Any]]:
    """A resolver of a Relay connection over `items` (after/first/before/last), with edges,
    pageInfo, totalCount and the plural shortcut list."""

    def resolve(
        info: Any,
        after: str | None = None,
        first: int | None = None,
        before: str | None = None,
        last: int | None = None,
    ) -> dict[str, Any]:
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
    (
        5,
        "Sentinel-class landing craft",
        "Sentinel-class landing craft",
        ["Sienar Fleet Systems", "Cyngus Spaceworks"],
        240000.0,
    ),
    (
        9,
        "Death Star",
        "DS-1 Orbital Battle Station",
        ["Imperial Department of Military Research", "Sienar Fleet Systems"],
        1000000000000.0,
    ),
    (10, "Millennium Falcon", "YT-1300 light freighter", ["Corellian Engineering Corporation"], 100000.0),
    (12, "X-wing", "T-65 X-wing", ["Incom Corporation"], 149999.5),
    (13, "TIE Advanced x1", "Twin Ion Engine Advanced x1", ["Sienar Fleet Systems"], None),
    (22, "Imperial shuttle", "Lambda-class T-4a shuttle", ["Sienar Fleet Systems"], 240000.0),
    (39, "Naboo fighter", "N-1 starfighter", ["Theed Palace Space Vessel Engineering Corps", None], 200000.0),
    (48, "Jedi starfighter", "Delta-7 Aethersprite-class interceptor", [], 180000.0),
    (49, "H-type Nubian yacht", "H-type Nubian yacht", ["Theed Palace Space Vessel Engineering Corps"], None),
    (
        59,
        "Trade Federation cruiser",
        "Providence-class carrier/destroyer",
        ["Rendili StarDrive, Free Dac Volunteers Engineering corps."],
        125000000.0,
    ),
    (
        64,
        "Naboo star skiff",
        "J-type star skiff",
        ["Theed Palace Space Vessel Engineering Corps/Nubia Star Drives, Incorporated"],
        None,
    ),
]
FILMS = [
    ("A New Hope", 4, [1, 2, 3, 4, 5, 12, 13], [1, 2, 3]),
    ("The Empire Strikes Back", 5, [1, 2, 3, 4, 5, 12, 13, 14], [4, 5, 6]),
    ("Return of the Jedi", 6, [1, 2, 3, 4, 5, 12, 13, 14], [1, 7]),
    ("The Phantom Menace", 1, [2, 3, 10, 11], [1, 8]),
]
SPECIES = [
    ("Human", "mammal", [1, 4, 5, 6, 7, 9, 10, 11, 12, 14], 9),
    ("Droid", "artificial", [2, 3, 8], None),
    ("Wookie", "mammal", [13], 9),
]
VEHICLES = [
    ("Sand Crawler", "Digger Crawler", []),
    ("Snowspeeder", "t-47 airspeeder", [1]),
    ("Imperial Speeder Bike", "74-Z speeder bike", []),
]


def _height(centimeters: int) -> Callable[..., float | int]:
    """A person's height: in centimeters (an integer, as SWAPI's Int field has it) unless
    another LengthUnit of the Star Wars schema is asked for."""

    def resolve(info: Any, unit: str = "CENTIMETER") -> float | int:
        if unit == "METER":
            return centimeters / 100
        if unit == "FOOT":
            return round(centimeters / 30.48, 2)
        return centimeters

    return resolve


def _dataset() -> dict[str, Any]:
    """The root value: the root fields of both schemas as resolvers over a deterministic
    dataset in which people, planets, films, starships, species and vehicles refer to one
    another (fields one schema lacks are never asked for there)."""
    planets: dict[int, dict[str, Any]] = {
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
    people: dict[int, dict[str, Any]] = {
        number: {
            "__typename": "Person",
            "id": _global_id("people", number),
            "name": name,
            "birthYear": f"{number * 3}BBY",
            "eyeColor": ["blue", "yellow", "red", "brown"][number % 4],
            "gender": gender,
            "hairColor": ["blond", "none", "brown", "black"][number % 4],
            "height": _height(150 + number * 3),
            "mass": 40.5 + number,
            "skinColor": "fair",
            "homeworld": planets.get(world) if world else None,
            "created": f"2014-12-{number:02d}T15:10:51.357000Z",
            "edited": "2014-12-20T21:17:56.891000Z",
        }
        for number, (name, gender, world, _) in enumerate(PEOPLE, start=1)
    }
    starships: dict[int, dict[str, Any]] = {
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
    films: dict[int, dict[str, Any]] = {
        number: {
            "__typename": "Film",
            "id": _global_id("films", number),
            "title": title,
            "episodeID": episode,
            "openingCrawl": f'Episode {episode}\r\n"{title}"\r\nIt is a period of civil war.',
            "director": "George Lucas",
            "producers": ["Gary Kurtz", "Rick McCallum"],
            "releaseDate": f"19{76 + number}-05-25",
            "created": "2014-12-10T14:23:31.880000Z",
            "edited": "2014-12-20T19:49:45.256000Z",
        }
        for number, (title, episode, _, _) in enumerate(FILMS, start=1)
    }
    species: dict[int, dict[str, Any]] = {
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
    vehicles: dict[int, dict[str, Any]] = {
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
    def pick(table: dict[int, dict[str, Any]], numbers: list[int]) -> list[dict[str, Any]]:
        return [table[number] for number in numbers]

    pilots: dict[int, list[int]] = {number: [] for number in starships}
    for number, (_, _, _, ships) in enumerate(PEOPLE, start=1):
        people[number]["starshipConnection"] = _connection(pick(starships, ships), "starships")
        for ship_number in ships:
            pilots[ship_number].append(number)
    for ship_number, flyers in pilots.items():
        starships[ship_number]["pilotConnection"] = _connection(pick(people, flyers), "pilots")
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

    def films_in(numbers: set[int]) -> Callable[..., dict[str, Any]]:
        return _connection([film for number, film in films.items() if number in numbers], "films")

    for number, person in people.items():
        person["filmConnection"] = films_in({film for film in films if number in film_people[film]})
        person["species"] = next(
            (species[kind] for kind, (_, _, members, _) in enumerate(SPECIES, start=1) if number in members), None
        )
        person["vehicleConnection"] = _connection(
            [vehicles[v] for v, (_, _, drivers) in enumerate(VEHICLES, start=1) if number in drivers], "vehicles"
        )
    for number, planet in planets.items():
        residents = [person for person in people.values() if person["homeworld"] is planet]
        planet["residentConnection"] = _connection(residents, "residents")
        planet["filmConnection"] = films_in({film for film in films if number in film_planets[film]})
    for number, ship in starships.items():
        ship["filmConnection"] = films_in({film for film in films if number in film_ships[film]})
    for number, kind in species.items():
        kind["personConnection"] = _connection(pick(people, SPECIES[number - 1][2]), "people")
        kind["filmConnection"] = films_in(set(films))
    for number, vehicle in vehicles.items():
        vehicle["pilotConnection"] = _connection(pick(people, VEHICLES[number - 1][2]), "pilots")
        vehicle["filmConnection"] = films_in({film for film in films if number <= film})

    def lookup(table: dict[int, dict[str, Any]], kind: str) -> Callable[..., dict[str, Any] | None]:
        by_id = {entity["id"]: entity for entity in table.values()}

        def resolve(info: Any, id: str | None = None, **numbered: str | None) -> dict[str, Any] | None:
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
    searchable: list[tuple[str, dict[int, dict[str, Any]]]] = [
        ("PERSON", people),
        ("PLANET", planets),
        ("STARSHIP", starships),
    ]

    def search(info: Any, text: str, kinds: list[str] | None = None, first: int = 10) -> list[dict[str, Any]]:
        """The entities of the kinds asked for whose name contains `text` (ignoring case):
        people, then planets, then starships, each by number; at most `first`."""
        found = [
            entity
            for kind, table in searchable
            if kinds is None or kind in kinds
            for entity in table.values()
            if text.lower() in entity["name"].lower()
        ]
        return found[:first]

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
        "search": search,
    }


ROOT = _dataset()


def execute(corpus: Corpus, document: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
    """What the generated server of `corpus` answers to `document`: its data, with no errors."""
    result = graphql.graphql_sync(corpus.server, document, root_value=ROOT, variable_values=variables)
    assert result.errors is None, [str(error) for error in result.errors or []]
    assert result.data is not None
    data: dict[str, Any] = result.data
    return data


@contextmanager
def open_cache(corpus: Corpus, folder: Path) -> Iterator[normcache.Cache]:
    """A cache in `folder` with the schema of `corpus` (which must be there), Nodes keyed by id."""
    with normcache.Cache(folder / "starwars.cache", schema=corpus.require().cache_sdl) as cache:
        yield cache


def _round_trip(
    corpus: Corpus, cache: normcache.Cache, query: str, variables: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Prepare `query`, serve its network document, write the answer; return what the server
    answers to the user's own query."""
    with cache.prepare(query) as op:
        cache.write(op, {"data": execute(corpus, op.document, variables)}, variables)
    return execute(corpus, query, variables)


def _read(cache: normcache.Cache, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
    """The data of `query` read from the cache."""
    with cache.prepare(query) as op:
        return cache.read(op, variables)


# --- both corpora ----------------------------------------------------------------------


@over_corpora
def test_the_dataset_serves_every_query(corpus: Corpus) -> None:
    corpus.require()
    assert [path.name for path in corpus.queries] == EXPECTED_QUERIES[corpus.name]
    for path in corpus.queries:
        assert execute(corpus, path.read_text(), corpus.variables(path)), path.name
    vader = execute(
        corpus,
        "{ person(personID: 4) { name homeworld { name } starshipConnection { edges { node { manufacturers } } } } }",
    )["person"]
    assert vader["name"] == "Darth Vader" and vader["homeworld"] == {"name": "Tatooine"}
    assert [edge["node"]["manufacturers"] for edge in vader["starshipConnection"]["edges"]] == [
        ["Sienar Fleet Systems"]
    ]
    query = (
        "{ allStarships(first: 7) { edges { node { name "
        "pilotConnection { edges { node { homeworld { name } } } } } } } }"
    )
    ships = execute(corpus, query)["allStarships"]["edges"]
    assert len(ships) == 7
    assert any(edge["node"]["pilotConnection"]["edges"] == [] for edge in ships)
    assert any(
        pilot["node"]["homeworld"] is None for edge in ships for pilot in edge["node"]["pilotConnection"]["edges"]
    )


@over_queries
def test_reading_back_gives_what_the_server_answers(corpus: Corpus, query_file: Path | None, tmp_path: Path) -> None:
    with open_cache(corpus, tmp_path) as cache:
        assert query_file is not None
        query, variables = query_file.read_text(), corpus.variables(query_file)
        with cache.prepare(query) as op:
            document = op.document
            assert "__typename" in document
            served = execute(corpus, document, variables)  # the network document is valid and runs
            cache.write(op, {"data": served}, variables)
            expected = execute(corpus, query, variables)
            assert cache.read(op, variables) == expected
            # The text too: compact, in selection order, every leaf as the server wrote it.
            assert cache.read_json(op, variables) == json.dumps(expected, ensure_ascii=False, separators=(",", ":"))


@over_queries
def test_a_second_identical_write_changes_nothing(corpus: Corpus, query_file: Path | None, tmp_path: Path) -> None:
    with open_cache(corpus, tmp_path) as cache:
        assert query_file is not None
        variables = corpus.variables(query_file)
        with cache.prepare(query_file.read_text()) as op:
            served = {"data": execute(corpus, op.document, variables)}
            assert cache.write(op, served, variables) != []
            assert cache.write(op, json.dumps(served), variables) == []


@over_corpora
def test_every_query_reads_back_from_one_shared_cache(corpus: Corpus, tmp_path: Path) -> None:
    with open_cache(corpus, tmp_path) as cache:
        expected = {
            path.stem: _round_trip(corpus, cache, path.read_text(), corpus.variables(path)) for path in corpus.queries
        }
        for path in corpus.queries:
            assert _read(cache, path.read_text(), corpus.variables(path)) == expected[path.stem], path.stem


@over_corpora
def test_entities_are_keyed_by_their_node_id(corpus: Corpus, tmp_path: Path) -> None:
    with open_cache(corpus, tmp_path) as cache:
        query = (
            "{ person(personID: 4) { name gender homeworld { name } starshipConnection { edges { node { id } } } } }"
        )
        _round_trip(corpus, cache, query)
        vader = _global_id("people", 4)
        record = cache.get(f"Person:{vader}")
        assert record is not None
        assert record["name"] == "Darth Vader" and record["id"] == vader and record["__typename"] == "Person"
        assert record["homeworld"] == {"$reference": f"Planet:{_global_id('planets', 1)}"}
        assert cache.get("QUERY_ROOT") == {"person(personID:4)": {"$reference": f"Person:{vader}"}}
        _round_trip(corpus, cache, "{ allStarships { edges { node { id } } } }")
        assert cache.search("Starship:") == sorted(f"Starship:{_global_id('starships', n)}" for n, *_ in STARSHIPS)


#: One selection written with plain fields, and read with fragments (named, nested, inline).
PLAIN_PILOTS = """{ allStarships(first: 7) { edges { node { id name model costInCredits
    pilotConnection { edges { node { name homeworld { name } } } } } } } }"""
FRAGMENT_PILOTS = [
    """{ allStarships(first: 7) { edges { node { id name model costInCredits
         pilotConnection { edges { node { ...pilot } } } } } } }
       fragment pilot on Person { name homeworld { name } }""",
    """{ allStarships(first: 7) { edges { node { ...starship } } } }
       fragment starship on Starship { id name model costInCredits pilotConnection { edges { node { ...pilot } } } }
       fragment pilot on Person { name homeworld { name } }""",
    """{ allStarships(first: 7) { edges { node { ... on Starship { id name } ... { model costInCredits }
         pilotConnection { edges { node { ... on Person { name ... on Person { homeworld { name } } } } } } } } } }""",
]


@over_corpora
def test_fragments_read_what_plain_fields_wrote(corpus: Corpus, tmp_path: Path) -> None:
    with open_cache(corpus, tmp_path) as cache:
        expected = _round_trip(corpus, cache, PLAIN_PILOTS)
        for query in FRAGMENT_PILOTS:
            assert _read(cache, query) == expected, query


@over_corpora
def test_a_field_never_written_is_missed_at_its_path(corpus: Corpus, tmp_path: Path) -> None:
    with open_cache(corpus, tmp_path) as cache:
        _round_trip(corpus, cache, "{ person(personID: 4) { name gender homeworld { name } } }")
        with cache.prepare("{ person(personID: 4) { name gender birthYear homeworld { name } } }") as op:
            with pytest.raises(normcache.CacheMiss) as miss:
                cache.read(op)
            assert miss.value.paths == [["person", "birthYear"]]
            assert miss.value.data is None
            with pytest.raises(normcache.CacheMiss) as partial:
                cache.read(op, partial=True)
            assert partial.value.paths == [["person", "birthYear"]]
            assert partial.value.data == {
                "person": {
                    "name": "Darth Vader",
                    "gender": "male",
                    "birthYear": None,
                    "homeworld": {"name": "Tatooine"},
                }
            }


@over_corpora
def test_a_page_never_written_is_missed_at_its_path(corpus: Corpus, tmp_path: Path) -> None:
    with open_cache(corpus, tmp_path) as cache:
        _round_trip(corpus, cache, PLAIN_PILOTS)
        query = "{ allStarships(first: 7) { totalCount edges { node { name } } } allPeople { totalCount } }"
        with cache.prepare(query) as op:
            with pytest.raises(normcache.CacheMiss) as miss:
                cache.read(op)
        assert sorted(map(json.dumps, miss.value.paths)) == sorted(
            map(json.dumps, [["allStarships", "totalCount"], ["allPeople"]])
        )
        with cache.prepare("{ allStarships(first: 8) { edges { node { name } } } }") as op:
            with pytest.raises(normcache.CacheMiss) as miss:
                cache.read(op)
        assert miss.value.paths == [["allStarships"]]


# --- the repository's own corpus: what SWAPI's examples do not exercise -------------------


def _starwars_query(name: str) -> str:
    """The text of a query of the repository's own corpus."""
    return (STARWARS.require().folder / name).read_text()


def test_arguments_of_every_kind_are_served_and_stored_under_their_values(tmp_path: Path) -> None:
    with open_cache(STARWARS, tmp_path) as cache:
        data = _round_trip(STARWARS, cache, _starwars_query("03_arguments.graphql"))
        assert data["person"] == {"name": "Darth Vader", "height": 162.0, "meters": 1.62, "feet": 5.31}
        assert [edge["node"]["name"] for edge in data["allStarships"]["edges"]] == [
            "Sentinel-class landing craft",
            "Death Star",
            "Millennium Falcon",
        ]
        assert [found["name"] for found in data["search"]] == [
            "Leia Organa",
            "Obi-Wan Kenobi",
            "Han Solo",
            "Lando Calrissian",
            "Alderaan",
        ]
        root = cache.get("QUERY_ROOT")
        assert root is not None
        assert sorted(root) == [
            "allStarships(after:YXJyYXljb25uZWN0aW9uOjE=,first:3)",
            "film(filmID:2)",
            "person(personID:4)",
            "planet(id:cGxhbmV0czoy)",
            "search(first:5,kinds:[PERSON, PLANET],text:an)",
        ]
        assert root["search(first:5,kinds:[PERSON, PLANET],text:an)"][-1] == {
            "$reference": f"Planet:{_global_id('planets', 2)}"
        }
        vader = cache.get(f"Person:{_global_id('people', 4)}")
        assert vader is not None
        assert {key: vader[key] for key in ("height", "height(unit:FOOT)", "height(unit:METER)")} == {
            "height": 162.0,
            "height(unit:FOOT)": 5.31,
            "height(unit:METER)": 1.62,
        }


def test_aliases_store_the_field_under_its_name_and_arguments(tmp_path: Path) -> None:
    with open_cache(STARWARS, tmp_path) as cache:
        data = _round_trip(STARWARS, cache, _starwars_query("04_aliases.graphql"))
        assert data["luke"] == {"fullName": "Luke Skywalker", "home": {"name": "Tatooine"}}
        assert data["first"]["films"] != data["last"]["films"]
        root = cache.get("QUERY_ROOT")
        assert root is not None
        assert sorted(root) == ["allFilms(first:1)", "allFilms(last:1)", "person(personID:1)", "person(personID:5)"]
        leia = cache.get(f"Person:{_global_id('people', 5)}")
        assert leia is not None and leia["name"] == "Leia Organa" and "fullName" not in leia


def test_interface_and_union_results_are_keyed_entities(tmp_path: Path) -> None:
    with open_cache(STARWARS, tmp_path) as cache:
        data = _round_trip(STARWARS, cache, _starwars_query("05_fragments.graphql"))
        assert [found.get("name") for found in data["search"]] == [
            "Darth Vader",
            "Owen Lars",
            "Beru Whitesun Lars",
            "Biggs Darklighter",
            "Star Destroyer",
            "Death Star",
            "Jedi starfighter",
            "Naboo star skiff",
        ]
        root = cache.get("QUERY_ROOT")
        assert root is not None
        assert root["node(id:cGVvcGxlOjQ=)"] == {"$reference": "Person:cGVvcGxlOjQ="}
        assert [reference["$reference"].split(":")[0] for reference in root["search(text:ar)"]] == ["Person"] * 4 + [
            "Starship"
        ] * 4
        # The union's Starship members were written through the untyped inline fragment.
        ship = cache.get(f"Starship:{_global_id('starships', 3)}")
        assert ship is not None and ship["model"] == "Imperial I-class Star Destroyer"


def test_variables_choose_what_is_read(tmp_path: Path) -> None:
    with open_cache(STARWARS, tmp_path) as cache:
        query = _starwars_query("06_variables.graphql")
        given = STARWARS.variables(STARWARS.folder / "06_variables.graphql")
        assert given == {"after": "YXJyYXljb25uZWN0aW9uOjM=", "withPilots": True}
        expected = _round_trip(STARWARS, cache, query, given)
        assert [edge["node"]["name"] for edge in expected["allStarships"]["edges"]] == ["Millennium Falcon", "X-wing"]
        assert _read(cache, query, given) == expected
        # Without the directive's field: a subset of what was written.
        without = _read(cache, query, {**given, "withPilots": False})
        assert without == execute(STARWARS, query, {**given, "withPilots": False})
        with cache.prepare(query) as op:
            # Another page, and heights in another unit, were never written.
            with pytest.raises(normcache.CacheMiss) as page:
                cache.read(op, {**given, "after": _cursor(5)})
            assert page.value.paths == [["allStarships"]]
            with pytest.raises(normcache.CacheMiss) as unit:
                cache.read(op, {**given, "unit": "METER"})
            assert unit.value.paths == [
                ["allStarships", "edges", 0, "node", "pilotConnection", "pilots", pilot, "height"] for pilot in range(3)
            ] + [
                ["allStarships", "edges", 1, "node", "pilotConnection", "pilots", pilot, "height"] for pilot in range(2)
            ]
