"""Typed entity classes: `objectgraph codegen` writes a module whose classes are the
entities' classes. Imported, it makes ctx.fetch(Book, ...) give Book objects against
a real store; under mypy --strict a good program passes, and a misspelt property, a
value of the wrong type or a member of the wrong class in a to-many each fail."""

from __future__ import annotations

import importlib.util
import sys
from datetime import datetime, timezone
from pathlib import Path
from types import ModuleType
from typing import Dict, Iterator

import pytest

import objectgraph as og
from objectgraph import objects
from objectgraph.tool import main
from conftest import REPO, assert_suggests
from test_typing import mypy

MODELS = REPO / "Tests" / "Fixtures" / "Models"
LIBRARY = MODELS / "Library.xcdatamodeld"


@pytest.fixture(autouse=True)
def declarations(monkeypatch) -> Iterator[None]:
    """The classes a test declares are forgotten after it (other tests' entities of the
    same names keep their own classes)."""
    monkeypatch.setattr(objects, "_declared", dict(objects._declared))
    yield


def generate(model: Path, folder: Path, name: str) -> Path:
    path = folder / f"{name}.py"
    assert main(["codegen", str(model), "-o", str(path)]) == 0
    return path


def load(path: Path) -> ModuleType:
    """Imports the generated module (under its file's name, as `import` would)."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[path.stem]
        raise
    return module


@pytest.fixture
def library(tmp_path: Path) -> Iterator[ModuleType]:
    module = load(generate(LIBRARY, tmp_path, "library_model"))
    yield module
    sys.modules.pop("library_model", None)


def test_the_module_declares_one_class_per_entity(tmp_path: Path) -> None:
    text = generate(LIBRARY, tmp_path, "library_model").read_text()
    assert 'class Book(og.TypedObject, entity="Book"):\n    __slots__ = ()\n' in text
    assert "    title: str\n" in text and "    shelf: Optional[Shelf]\n" in text
    assert "    authors: og.ToMany[Author]\n" in text
    assert "    books: og.OrderedToMany[Book]\n" in text  # Shelf.books is ordered
    assert "    due: datetime\n" in text and "from datetime import datetime\n" in text
    inheritance = generate(MODELS / "Inheritance.xcdatamodeld", tmp_path, "vehicles").read_text()
    assert 'class Car(Vehicle, entity="Car"):' in inheritance
    assert 'class SportsCar(Car, entity="SportsCar"):' in inheritance
    assert "    wheels: int\n" in inheritance and "    topSpeed: Optional[float]\n" in inheritance
    # `stubs` is the same command.
    assert main(["stubs", str(LIBRARY), "-o", str(tmp_path / "stubs.pyi")]) == 0
    assert (tmp_path / "stubs.pyi").read_text() == text


def test_the_classes_are_the_entities_classes(library: ModuleType, tmp_path: Path) -> None:
    Author, Book, Loan, Shelf = library.Author, library.Book, library.Loan, library.Shelf
    coordinator = og.Coordinator(og.Model.load(str(LIBRARY)))
    coordinator.add_store("SQLite", str(tmp_path / "library.sqlite"))
    with og.Context(coordinator) as ctx:
        ann = ctx.insert(Author, name="Ann")
        assert type(ann).__name__ == "Author" and isinstance(ann, Author) and isinstance(ann, og.ManagedObject)
        mort = ctx.insert(Book, title="Mort", authors=[ann])
        eric = ctx.insert(Book, title="Eric", authors={ann})
        shelf = ctx.insert(Shelf, label="P")
        shelf.books = [mort]
        shelf.books.insert(0, eric)
        ctx.insert(Loan, due=datetime(2030, 1, 1, tzinfo=timezone.utc), book=mort)
        ctx.save()
    with og.Context(coordinator) as ctx:
        books = ctx.fetch(Book, "title BEGINSWITH %@", "M")
        assert [type(b) for b in books] == [type(mort)] and isinstance(books[0], Book)
        assert books[0].title == "Mort" and isinstance(books[0].shelf, Shelf)
        assert [b.title for b in ctx.fetch(Shelf)[0].books] == ["Eric", "Mort"]
        assert all(isinstance(b, Book) for b in ctx.fetch(Author)[0].books)
        assert ctx.count(Book) == 2 and len(ctx.fetch_ids(Book, "title == 'Eric'")) == 1
        assert ctx.fetch_values(Book, "title", sort="title") == ["Eric", "Mort"]
        with pytest.raises(AttributeError) as raised:
            books[0].titel  # noqa: B018
        assert_suggests(raised.value, "title")
        with pytest.raises(AttributeError):
            books[0].titel = "x"  # a declared class takes no other attributes either
    coordinator.close()


def test_mypy_strict_checks_typed_code(library: ModuleType, tmp_path: Path) -> None:
    programs: Dict[str, str] = {
        "good.py": (
            "from typing import List, Optional\n"
            "import objectgraph as og\n"
            "from library_model import Author, Book, Shelf\n"
            "def use(ctx: og.Context) -> str:\n"
            "    books: List[Book] = ctx.fetch(Book, 'title == %@', 'Mort', sort=['title'])\n"
            "    book = ctx.insert(Book, title='Eric')\n"
            "    book.title = 'Sourcery'\n"
            "    author: Author = ctx.insert(Author, name='Ann')\n"
            "    book.authors.add(author)\n"
            "    book.authors = [author]\n"
            "    shelf: Optional[Shelf] = books[0].shelf\n"
            "    if shelf is not None:\n"
            "        shelf.books.append(book)\n"
            "        first: Book = shelf.books[0]\n"
            "    ctx.delete(book)\n"
            "    return ', '.join(a.name for b in books for a in b.authors)\n"),
        "typo.py": (
            "import objectgraph as og\n"
            "from library_model import Book\n"
            "def use(ctx: og.Context) -> object:\n"
            "    return ctx.fetch(Book)[0].titel\n"),
        "wrong_type.py": (
            "import objectgraph as og\n"
            "from library_model import Book\n"
            "def use(ctx: og.Context) -> None:\n"
            "    ctx.fetch(Book)[0].title = 3\n"),
        "wrong_member.py": (
            "import objectgraph as og\n"
            "from library_model import Author, Shelf\n"
            "def use(ctx: og.Context, shelf: Shelf) -> None:\n"
            "    shelf.books.append(ctx.insert(Author, name='Ann'))\n"),
    }
    for name, text in programs.items():
        (tmp_path / name).write_text(text)
    # The module of every fixture model type-checks too (every attribute type, inheritance).
    fixtures = [generate(path, tmp_path, f"fixture_{path.stem.lower()}").name
                for path in sorted(MODELS.glob("*.xcdatamodel*"))]
    result = mypy(*programs, *fixtures, cwd=tmp_path)
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    by_file = {name: [e for e in errors if e.startswith(name + ":")] for name in programs}
    assert by_file["good.py"] == [], result.stdout
    assert by_file["typo.py"] == [
        'typo.py:4: error: "Book" has no attribute "titel"; maybe "title"?  [attr-defined]'], result.stdout
    assert by_file["wrong_type.py"] == [
        'wrong_type.py:4: error: Incompatible types in assignment (expression has type "int", '
        'variable has type "str")  [assignment]'], result.stdout
    assert len(by_file["wrong_member.py"]) == 1 and '"Author"; expected "Book"' in by_file["wrong_member.py"][0]
    assert len(errors) == 3 and "library_model.py" not in result.stdout and "fixture_" not in result.stdout


def test_subentities_are_instances_of_their_ancestors_classes(tmp_path: Path) -> None:
    model_path = MODELS / "Inheritance.xcdatamodeld"
    vehicles = load(generate(model_path, tmp_path, "vehicles_model"))
    try:
        coordinator = og.Coordinator(og.Model.load(str(model_path)))
        coordinator.add_store("InMemory", "")
        with og.Context(coordinator) as ctx:
            owner = ctx.insert(vehicles.Person, name="Ann")
            ctx.insert(vehicles.SportsCar, plate="FAST", topSpeed=300.0, owner=owner)
            ctx.insert(vehicles.Car, plate="SLOW", owner=owner)
            fetched = ctx.fetch(vehicles.Vehicle, sort="plate")
            assert [type(v).__name__ for v in fetched] == ["SportsCar", "Car"]
            assert all(isinstance(v, vehicles.Car) for v in fetched)
            assert isinstance(fetched[0], vehicles.SportsCar) and not isinstance(fetched[1], vehicles.SportsCar)
            assert {v.plate for v in owner.vehicles} == {"FAST", "SLOW"}
        coordinator.close()
    finally:
        sys.modules.pop("vehicles_model", None)


def test_a_hand_written_class_keeps_its_methods_and_properties(open_stack, books_model) -> None:
    class Book(og.TypedObject, entity="Book"):
        __slots__ = ()
        title: str
        pages: int

        @property
        def year(self) -> str:  # a custom accessor: it wins over the entity's own
            return f"year {self['year']}"

        def shout(self) -> str:
            return self.title.upper()

    stack = open_stack(books_model)
    book = stack.context.insert(Book, title="Mort", year=1987)
    assert book.shout() == "MORT" and book.year == "year 1987" and book["year"] == 1987


def test_classes_that_do_not_fit_are_refused(open_stack, books_model) -> None:
    stack = open_stack(books_model)
    ctx = stack.context
    with pytest.raises(og.UsageError, match="not declared for an entity"):
        ctx.fetch(og.ManagedObject)
    ctx.insert("Author", name="Ann")  # the Author class is made now, before a class is declared

    class Book(og.TypedObject, entity="Book"):  # as another model's Book, with a property this one lacks
        __slots__ = ()
        isbn: str

    class Author(og.TypedObject, entity="Author"):
        __slots__ = ()
        name: str

    book = ctx.insert("Book", title="Mort")
    assert not isinstance(book, Book)  # left out: this model's Book has no isbn
    with pytest.raises(og.UsageError, match="declares 'isbn', which entity 'Book' of this model does not have"):
        ctx.fetch(Book)
    with pytest.raises(og.UsageError, match="used before the class was declared: import"):
        ctx.insert(Author, name="Bob")
    with pytest.raises(og.UsageError):

        class Nameless(og.TypedObject, entity=""):
            pass
