"""ObjectGraph from Python in one page: a model of authors and books, an SQLite
store, objects inserted and related, saved, then read back from a fresh stack.

    OBJECTGRAPH_LIBRARY=build/swiftpm/release/libobjectgraph.so \
        PYTHONPATH=bindings/python python3 examples/python/quickstart.py [books.sqlite]
"""

import os
import sys
import tempfile

import objectgraph as og


def build_model() -> og.Model:
    model = og.Model()
    author = model.add_entity("Author")
    book = model.add_entity("Book")
    author.add_attribute("name", "string", optional=False)
    # Deleting an author deletes their books; each side is the other's inverse.
    books = author.add_relationship("books", book, to_many=True, delete_rule="cascade")
    book.add_attribute("title", "string", optional=False)
    book.add_attribute("year", "integer16")
    book.add_relationship("author", author, inverse=books)
    return model


def open_context(path: str) -> og.Context:
    coordinator = og.Coordinator(build_model())  # the model is now fixed
    store = coordinator.add_store("SQLite", path)  # created when missing
    print(f"store {store.type} at {store.path}")
    return og.Context(coordinator)


def main() -> None:
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(tempfile.mkdtemp(), "books.sqlite")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    for old in (path, path + "-wal", path + "-shm"):  # start from an empty store
        if os.path.exists(old):
            os.remove(old)

    with open_context(path) as ctx:
        pratchett = ctx.insert("Author", name="Terry Pratchett")
        le_guin = ctx.insert("Author", name="Ursula K. Le Guin")
        ctx.insert("Book", title="Mort", year=1987, author=pratchett)
        strata = ctx.insert("Book", title="Strata", year=1981)
        strata.author = pratchett  # the inverse follows: pratchett.books has it now
        le_guin.books.add(ctx.insert("Book", title="The Dispossessed", year=1974))
        print("temporary ID:", strata.object_id)
        ctx.save()
        print("permanent ID:", strata.object_id)

    # A new stack over the same file sees what was saved.
    with open_context(path) as ctx:
        for book in ctx.fetch("Book", sort=["-year", "title"]):
            print(f"{book.year}  {book.title:<18} by {book.author.name}")
        for author in ctx.fetch("Author", sort="name"):
            titles = sorted(b.title for b in author.books)
            print(f"{author.name}: {len(titles)} book(s): {', '.join(titles)}")
        older = ctx.fetch("Book", "year < %@ AND author.name CONTAINS[c] %@", 1985, "terry", sort="title")
        print("before 1985 by Terry:", ", ".join(b.title for b in older))
        try:
            ctx.insert("Book", title="Untitled", colour="red")
        except og.UnknownKeyError as error:
            print(f"error {error.code}: {error.message}")


if __name__ == "__main__":
    main()
