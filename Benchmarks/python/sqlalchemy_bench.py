"""SQLAlchemy 2 ORM: a declarative Item class, objects added to a Session and
committed, then selected back and read as attributes. Reports "skipped" when
SQLAlchemy is not installed.

The same code runs main on an SQLite file (pysqlite, WAL) and the postgres workload
(row "sqlalchemy-psycopg") on the PostgreSQL server through psycopg 3
(``postgresql+psycopg://``), the run's schema as the connection's search_path;
that row is skipped when psycopg is not installed. Integers are BIGINT on
PostgreSQL, as in the other contenders' tables; on SQLite the key stays INTEGER
PRIMARY KEY (the rowid)."""

import time

import bench_common as common

try:
    import sqlalchemy
    from sqlalchemy import BigInteger, Integer, create_engine, event, select, text
    from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column
except ImportError:
    common.skip("SQLAlchemy is not installed (pip install 'sqlalchemy>=2')")

if int(sqlalchemy.__version__.split(".")[0]) < 2:
    common.skip(f"SQLAlchemy {sqlalchemy.__version__} is installed; this contender needs 2.x")


class Base(DeclarativeBase):
    type_annotation_map = {int: BigInteger().with_variant(Integer(), "sqlite")}


class Item(Base):
    __tablename__ = "item"
    id: Mapped[int] = mapped_column(primary_key=True)
    a0: Mapped[int]
    a1: Mapped[int]
    a2: Mapped[int]
    a3: Mapped[int]
    a4: Mapped[int]
    a5: Mapped[int]
    a6: Mapped[int]
    a7: Mapped[int]
    a8: Mapped[int]
    a9: Mapped[int]


def _psycopg():
    """psycopg 3, or None when it is not installed."""
    try:
        import psycopg
    except ImportError:
        return None
    return psycopg


def _engine(store):
    if store.schema is not None:
        url = "postgresql+psycopg://" + store.path.split("://", 1)[1]
        return create_engine(url, connect_args={"options": f"-c search_path={store.schema}"})
    engine = create_engine(f"sqlite:///{store.path}")

    @event.listens_for(engine, "connect")
    def _wal(connection, _record):  # as ObjectGraph's stores
        cursor = connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.close()

    return engine


class SQLAlchemyORM:
    name = "sqlalchemy"
    postgres_name = "sqlalchemy-psycopg"
    postgres = True
    insert_table = "item"
    insert_columns = common.ATTRIBUTES

    @staticmethod
    def unavailable(workload):
        if workload == "postgres" and _psycopg() is None:
            return "psycopg 3 is not installed (pip install 'psycopg[binary]')"
        return None

    @staticmethod
    def describe(workload):
        about = f"{common.PYTHON}, SQLAlchemy {sqlalchemy.__version__}"
        if workload == "postgres":
            psycopg = _psycopg()
            libpq = psycopg.pq.version()
            about += f", psycopg {psycopg.__version__} ({psycopg.pq.__impl__}, libpq {libpq // 10000}.{libpq % 10000})"
        return about

    def insert(self, store, count):
        engine = _engine(store)
        if store.schema is not None:
            with engine.begin() as connection:
                connection.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{store.schema}"'))
        Base.metadata.create_all(engine)
        with Session(engine) as session:
            session.connection()  # connect before the timed block
            start = common.clock()
            for i in range(count):
                b = i * 10
                session.add(Item(a0=b, a1=b + 1, a2=b + 2, a3=b + 3, a4=b + 4,
                                 a5=b + 5, a6=b + 6, a7=b + 7, a8=b + 8, a9=b + 9))
            session.commit()
            elapsed = time.perf_counter() - start
        engine.dispose()
        return elapsed

    def fetch(self, store):
        engine = _engine(store)
        with Session(engine) as session:
            session.connection()  # connect before the timed block
            start = common.clock()
            items = session.scalars(select(Item)).all()
            total = 0
            for o in items:
                total += o.a0 + o.a1 + o.a2 + o.a3 + o.a4 + o.a5 + o.a6 + o.a7 + o.a8 + o.a9
            elapsed = time.perf_counter() - start
            count = len(items)
            del items  # released outside the timed block
        engine.dispose()
        return elapsed, total, count


if __name__ == "__main__":
    common.main(SQLAlchemyORM())
