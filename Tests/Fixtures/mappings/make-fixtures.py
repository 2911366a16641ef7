#!/usr/bin/env python3
"""Writes the mapping-model fixtures (good/ and bad/) used by MappingFileTests and the
mapping-model fuzz target. Run it from anywhere; the output is deterministic, so running
it again must leave git clean.

The compiled (.cdm) and Xcode (.xcmappingmodel) fixtures are made here, independently of
the Swift writers, in the shapes Core Data and Xcode use: NSKeyedArchiver archives of
NSMappingModel / NSEntityMapping / NSPropertyMapping / NSExpression with Core Data's
archive keys, and Core Data XML-store documents of XDDEV… objects.
"""
import base64
import json
import pathlib
import plistlib
import shutil

HERE = pathlib.Path(__file__).resolve().parent
GOOD = HERE / "good"
BAD = HERE / "bad"


# --- keyed archives ------------------------------------------------------------------

class Archive:
    """Builds an NSKeyedArchiver object table."""

    def __init__(self):
        self.objects = ["$null"]
        self.classes = {}

    def ref(self, value):
        self.objects.append(value)
        return plistlib.UID(len(self.objects) - 1)

    def cls(self, names):
        if names[0] not in self.classes:
            self.classes[names[0]] = self.ref({"$classname": names[0], "$classes": names})
        return self.classes[names[0]]

    def obj(self, names, fields):
        index = len(self.objects)
        self.objects.append(None)
        d = dict(fields)
        d["$class"] = self.cls(names)
        self.objects[index] = d
        return plistlib.UID(index)

    def string(self, s):
        return self.ref(s)

    def array(self, items, mutable=True):
        names = ["NSMutableArray", "NSArray", "NSObject"] if mutable else ["NSArray", "NSObject"]
        return self.obj(names, {"NS.objects": list(items)})

    def dictionary(self, d):
        keys = sorted(d)
        return self.obj(["NSMutableDictionary", "NSDictionary", "NSObject"],
                        {"NS.keys": [self.string(k) for k in keys], "NS.objects": [self.string(d[k]) for k in keys]})

    def data(self, root):
        return plistlib.dumps({"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": root},
                               "$objects": self.objects}, fmt=plistlib.FMT_BINARY, sort_keys=True)


# Expressions as small tuples, archived the way Foundation archives NSExpression.
def keypath(path, base=("self",)):
    return ("keypath", base, path)


def var(name):
    return ("var", name)


def const(value):
    return ("const", value)


def func(receiver, selector, *args):
    return ("func", receiver, selector, list(args))


def fetch(request, context, count_only=False):
    return ("fetch", request, context, count_only)


def archive_expression(a, e):
    kind = e[0]
    if kind == "self":
        return a.obj(["NSSelfExpression", "NSExpression", "NSObject"], {"NSExpressionType": 1})
    if kind == "var":
        return a.obj(["NSVariableExpression", "NSExpression", "NSObject"], {"NSExpressionType": 2, "NSVariable": a.string(e[1])})
    if kind == "const":
        fields = {"NSExpressionType": 0}
        value = e[1]
        if value is not None:
            fields["NSConstantValue"] = a.string(value) if isinstance(value, str) else value
        return a.obj(["NSConstantValueExpression", "NSExpression", "NSObject"], fields)
    if kind == "keypath":
        operand = archive_expression(a, e[1])
        spec = a.obj(["NSKeyPathSpecifierExpression", "NSExpression", "NSObject"], {"NSExpressionType": 10, "NSKeyPath": a.string(e[2])})
        return a.obj(["NSKeyPathExpression", "NSFunctionExpression", "NSExpression", "NSObject"],
                     {"NSExpressionType": 4, "NSOperand": operand, "NSSelectorName": a.string("valueForKeyPath:"),
                      "NSArguments": a.array([spec])})
    if kind == "func":
        operand = archive_expression(a, e[1])
        args = [archive_expression(a, x) for x in e[3]]
        return a.obj(["NSFunctionExpression", "NSExpression", "NSObject"],
                     {"NSExpressionType": 4, "NSOperand": operand, "NSSelectorName": a.string(e[2]), "NSArguments": a.array(args)})
    if kind == "fetch":
        return a.obj(["NSFetchRequestExpression", "NSExpression", "NSObject"],
                     {"NSExpressionType": 50, "NSFRExpression": archive_expression(a, e[1]),
                      "NSMOCExpression": archive_expression(a, e[2]), "NSCountOnlyFlag": e[3]})
    if kind == "raw":  # an object given as is, for malformed fixtures
        return a.obj(e[1], e[2])
    raise ValueError(kind)


def expression_archive(e):
    a = Archive()
    root = archive_expression(a, e)
    return a.data(root)


def default_source(entity):
    return fetch(func(var("manager"), "fetchRequestForSourceEntityNamed:predicateString:", const(entity), const("TRUEPREDICATE")),
                 keypath("sourceContext", var("manager")))


# The canonical text the library gives these expressions.
def text(e):
    kind = e[0]
    if kind == "self":
        return "SELF"
    if kind == "var":
        return "$" + e[1]
    if kind == "const":
        v = e[1]
        if v is None:
            return "nil"
        if isinstance(v, bool):
            return "1" if v else "0"
        if isinstance(v, str):
            return json.dumps(v)
        return str(v)
    if kind == "keypath":
        return e[2] if e[1] == ("self",) else text(e[1]) + "." + e[2]
    if kind == "func":
        head = "FUNCTION(" + text(e[1]) + ", " + json.dumps(e[2])
        return head + ("" if not e[3] else " , " + ", ".join(text(x) for x in e[3])) + ")"
    if kind == "fetch":
        return "FETCH(" + text(e[1]) + ", " + text(e[2]) + ", " + ("1" if e[3] else "0") + ")"
    raise ValueError(kind)


HASH_A = bytes(range(32))
HASH_B = bytes(range(100, 132))


# --- the good fixtures -----------------------------------------------------------------

def library_json():
    default = 'FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:", "{0}", "TRUEPREDICATE"), $manager.sourceContext, NO)'
    return {
        "format": "objectgraph-mapping-model",
        "formatVersion": 1,
        "entityMappings": [
            {
                "name": "AuthorToWriter", "kind": "transform",
                "sourceEntityName": "Author", "sourceEntityVersionHash": HASH_A.hex(),
                "destinationEntityName": "Writer", "destinationEntityVersionHash": HASH_B.hex(),
                "sourceExpression": default.format("Author"),
                "migrationPolicyName": "AuthorPolicy",
                "attributeMappings": [
                    {"name": "name", "valueExpression": "$source.name"},
                    {"name": "born", "valueExpression": "$source.birthDate", "userInfo": {"note": "renamed"}},
                    {"name": "shelf", "valueExpression": "$source.shelf + 1"},
                    {"name": "initials"},
                ],
                "relationshipMappings": [
                    {"name": "books", "valueExpression":
                        'FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "BookToBook", $source.books)'},
                ],
                "userInfo": {"owner": "library", "since": "2"},
            },
            {
                "name": "BookToBook", "kind": "copy", "sourceEntityName": "Book", "destinationEntityName": "Book",
                "sourceExpression": default.format("Book"),
                "attributeMappings": [{"name": "title", "valueExpression": "$source.title"}],
                "relationshipMappings": [{"name": "author", "valueExpression":
                    'FUNCTION($manager , "destinationInstancesForEntityMappingNamed:sourceInstances:" , "AuthorToWriter" , $source.author)'}],
            },
            {
                "name": "Genre", "kind": "add", "destinationEntityName": "Genre",
                "attributeMappings": [{"name": "label", "valueExpression": '"Unknown"'}],
            },
            {"name": "Loan", "kind": "remove", "sourceEntityName": "Loan", "sourceExpression": default.format("Loan")},
            {
                "name": "ReviewToReview", "kind": "custom", "sourceEntityName": "Review", "destinationEntityName": "Review",
                "migrationPolicyName": "ReviewPolicy",
                "sourceExpression": 'FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:", "Review", "stars > 2"), $manager.sourceContext, NO)',
            },
            {"name": "Legacy", "kind": "undefined", "userInfo": {"why": "kept for old stores"}},
            {"name": "Unicode ✓", "kind": "copy", "sourceEntityName": "Note", "destinationEntityName": "Note",
             "attributeMappings": [{"name": "text", "valueExpression": '"naïve <&> \\"quoted\\""'}]},
        ],
    }


# Blog: an Xcode-made mapping model, as Xcode lays it out.
BLOG_MAPPINGS = [
    # name in file (None: Xcode's default), type, number, source, destination, policy, autogenerate,
    # attribute mappings [(name, expression or None)], relationship mappings [(name, expression or None, autogenerate)]
    dict(id="z102", number=2, type="Transform", source="Post", destination="Post", policy="Blog.PostPolicy", auto=True,
         attributes=[("title", keypath("title", var("source"))), ("body", keypath("text", var("source"))), ("date", None)],
         relationships=[("author", func(var("manager"), "destinationInstancesForEntityMappingNamed:sourceInstances:",
                                         const("UserToAuthor"), keypath("author", var("source"))), False),
                        ("tags", None, True)]),
    dict(id="z104", number=1, type="Transform", source="User", destination="Author", name="UserToAuthor", auto=True,
         attributes=[("name", keypath("name", var("source"))), ("karma", const(0))],
         relationships=[]),
    dict(id="z103", number=3, type="Add", source=None, destination="Tag", auto=True,
         attributes=[("label", const("untagged"))], relationships=[]),
    dict(id="z105", number=4, type="Remove", source="Draft", destination=None, auto=True, attributes=[], relationships=[]),
]


def store_header(next_id):
    hashes = [
        ("XDDevAttributeMapping", "0plcXXRN7XHKl5CcF+fwriFmUpON3ZtcI/AfK748aWc="),
        ("XDDevEntityMapping", "qeN1Ym3TkWN1G6dU9RfX6Kd2ccEvcDVWHpd3LpLgboI="),
        ("XDDevMappingModel", "EqtMzvRnVZWkXwBHu4VeVGy8UyoOe+bi67KC79kphlQ="),
        ("XDDevPropertyMapping", "XN33V44TTGY4JETlMoOB5yyTKxB+u4slvDIinv0rtGA="),
        ("XDDevRelationshipMapping", "akYY9LhehVA/mCb4ATLWuI9XGLcjpm14wWL1oEBtIcs="),
    ]
    out = ['<?xml version="1.0" standalone="yes"?>', '<!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">', "",
           "<database>", "    <databaseInfo>", "        <version>134481920</version>",
           "        <UUID>0B5E7C1A-2D3F-4A5B-8C6D-7E8F9A0B1C2D</UUID>", f"        <nextObjectID>{next_id}</nextObjectID>",
           "        <metadata>", '            <plist version="1.0">', "                <dict>",
           "                    <key>NSPersistenceFrameworkVersion</key>", "                    <integer>866</integer>",
           "                    <key>NSStoreModelVersionHashes</key>", "                    <dict>"]
    for k, v in hashes:
        out += [f"                        <key>{k}</key>", "                        <data>", f"\t\t{v}", "\t\t</data>"]
    out += ["                    </dict>", "                    <key>NSStoreModelVersionHashesVersion</key>",
            "                    <integer>3</integer>", "                    <key>NSStoreModelVersionIdentifiers</key>",
            "                    <array>", "                        <string></string>", "                    </array>",
            "                </dict>", "            </plist>", "        </metadata>", "    </databaseInfo>"]
    return "\n".join(out) + "\n"


def xml_escape(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def b64lines(data):
    t = base64.b64encode(data).decode()
    return "\n".join(t[i:i + 76] for i in range(0, len(t), 76))


def attr(name, type_, value):
    return f'        <attribute name="{name}" type="{type_}">{value}</attribute>'


def rel(name, type_, dest, ids):
    return f'        <relationship name="{name}" type="{type_}" destination="{dest}" idrefs="{" ".join(ids)}"></relationship>'


def obj(type_, id_, lines):
    return "\n".join([f'    <object type="{type_}" id="{id_}">'] + lines + ["    </object>"])


def blog_xml(mappings=BLOG_MAPPINGS, model_id="z101", extra_model_lines=(), first_property_id=110):
    objects = []
    next_id = first_property_id
    for m in mappings:
        attr_ids, rel_ids = [], []
        for (name, e) in m["attributes"]:
            pid = f"z{next_id}"; next_id += 1
            attr_ids.append(pid)
            lines = []
            if e is not None:
                lines.append(attr("valueexpressiondata", "binary", b64lines(expression_archive(e))))
            lines += [attr("name", "string", xml_escape(name)), rel("entitymapping", "1/1", "XDDEVENTITYMAPPING", [m["id"]])]
            objects.append(obj("XDDEVATTRIBUTEMAPPING", pid, lines))
        for (name, e, auto) in m["relationships"]:
            pid = f"z{next_id}"; next_id += 1
            rel_ids.append(pid)
            lines = []
            if auto:
                lines.append(attr("autogenerateexpression", "bool", "1"))
            if e is not None:
                lines.append(attr("valueexpressiondata", "binary", b64lines(expression_archive(e))))
            lines += [attr("name", "string", xml_escape(name)), rel("entitymapping", "1/1", "XDDEVENTITYMAPPING", [m["id"]])]
            objects.append(obj("XDDEVRELATIONSHIPMAPPING", pid, lines))
        lines = []
        if m.get("name"):
            lines.append(attr("name", "string", m["name"]))
        if m.get("policy"):
            lines.append(attr("migrationpolicyclassname", "string", m["policy"]))
        if m.get("source"):
            lines.append(attr("sourcename", "string", m["source"]))
        lines += [attr("mappingtypename", "string", m["type"]), attr("mappingnumber", "int16", str(m["number"]))]
        if m.get("destination"):
            lines.append(attr("destinationname", "string", m["destination"]))
        if m.get("auto"):
            lines.append(attr("autogenerateexpression", "bool", "1"))
        lines += [rel("mappingmodel", "1/1", "XDDEVMAPPINGMODEL", [model_id]),
                  rel("attributemappings", "0/0", "XDDEVATTRIBUTEMAPPING", list(reversed(attr_ids))[::-1]),
                  rel("relationshipmappings", "0/0", "XDDEVRELATIONSHIPMAPPING", rel_ids)]
        objects.insert(0, obj("XDDEVENTITYMAPPING", m["id"], lines))
    model_lines = [attr("sourcemodelpath", "string", "Blog/Model.xcdatamodeld/Model.xcdatamodel"),
                   attr("sourcemodeldata", "binary", b64lines(b"Xcode's copy of the source model")),
                   attr("destinationmodelpath", "string", "Blog/Model.xcdatamodeld/Model 2.xcdatamodel"),
                   attr("destinationmodeldata", "binary", b64lines(b"Xcode's copy of the destination model"))]
    model_lines += list(extra_model_lines)
    # The store lists the mappings in any order: mappingnumber orders them.
    model_lines.append(rel("entitymappings", "0/0", "XDDEVENTITYMAPPING", [m["id"] for m in reversed(mappings)]))
    objects.append(obj("XDDEVMAPPINGMODEL", model_id, model_lines))
    return store_header(next_id) + "\n".join(objects) + "\n</database>\n"


def blog_expected():
    default = 'FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:", "{0}", "TRUEPREDICATE"), $manager.sourceContext, NO)'
    out = []
    for m in sorted(BLOG_MAPPINGS, key=lambda m: m["number"]):
        name = m.get("name") or (f'{m["source"]}To{m["destination"]}' if m.get("source") and m.get("destination")
                                 else m.get("destination") or m.get("source"))
        d = {"name": name, "kind": m["type"].lower()}
        if m.get("source"):
            d["sourceEntityName"] = m["source"]
            d["sourceExpression"] = default.format(m["source"])
        if m.get("destination"):
            d["destinationEntityName"] = m["destination"]
        if m.get("policy"):
            d["migrationPolicyName"] = m["policy"]
        if m["attributes"]:
            d["attributeMappings"] = [{"name": n, **({"valueExpression": text(e)} if e is not None else {})} for n, e in m["attributes"]]
        if m["relationships"]:
            d["relationshipMappings"] = [{"name": n, **({"valueExpression": text(e)} if e is not None else {})} for n, e, _ in m["relationships"]]
        out.append(d)
    return {"format": "objectgraph-mapping-model", "formatVersion": 1, "entityMappings": out}


# Library.cdm: a compiled mapping model in Core Data's archive shape.
CDM_MAPPINGS = [
    dict(name="AuthorToWriter", type=5, source="Author", destination="Writer", shash=HASH_A, dhash=HASH_B,
         expression=default_source("Author"), policy="AuthorPolicy", userInfo={"owner": "library"},
         attributes=[("name", keypath("name", var("source")), {}), ("born", keypath("birthDate", var("source")), {"note": "renamed"}),
                     ("initials", None, {})],
         relationships=[("books", func(var("manager"), "destinationInstancesForEntityMappingNamed:sourceInstances:",
                                       const("BookToBook"), keypath("books", var("source"))), {})]),
    dict(name="BookToBook", type=4, source="Book", destination="Book", shash=HASH_B, dhash=HASH_B,
         expression=default_source("Book"), attributes=[("title", keypath("title", var("source")), {}),
                                                        ("pages", keypath("pages.count", var("source")), {})],
         relationships=[]),
    dict(name=None, type=2, source=None, destination="Genre", dhash=HASH_A,
         attributes=[("label", const("Unknown"), {}), ("rank", const(3), {}), ("shown", const(True), {})], relationships=[]),
    dict(name="Loan", type=3, source="Loan", destination=None, shash=HASH_A, expression=default_source("Loan"),
         attributes=[], relationships=[]),
]


def cdm_archive(mappings, root_class=("NSMappingModel", "NSObject"), mutate=None):
    a = Archive()
    refs = []
    for m in mappings:
        fields = {"NSMappingType": m["type"]}
        if m.get("name") is not None:
            fields["NSMappingName"] = a.string(m["name"]) if isinstance(m["name"], str) else m["name"]
        if m.get("source"):
            fields["NSSourceEntityName"] = a.string(m["source"])
        if m.get("destination"):
            fields["NSDestinationEntityName"] = a.string(m["destination"])
        if m.get("shash") is not None:
            fields["NSSourceEntityVersionHash"] = m["shash"]
        if m.get("dhash") is not None:
            fields["NSDestinationEntityVersionHash"] = m["dhash"]
        if m.get("expression"):
            fields["NSSourceExpression"] = archive_expression(a, m["expression"])
        if m.get("policy"):
            fields["NSEntityMigrationPolicyClassName"] = a.string(m["policy"])
        if m.get("userInfo"):
            fields["NSUserInfo"] = a.dictionary(m["userInfo"])
        for key, items in (("NSAttributeMappings", m["attributes"]), ("NSRelationshipMappings", m["relationships"])):
            prefs = []
            for (name, e, info) in items:
                pf = {"NSDestinationPropertyName": a.string(name)}
                if e is not None:
                    pf["NSValueExpression"] = archive_expression(a, e)
                if info:
                    pf["NSUserInfo"] = a.dictionary(info)
                prefs.append(a.obj(["NSPropertyMapping", "NSObject"], pf))
            fields[key] = a.array(prefs)
        if mutate:
            mutate(a, fields)
        refs.append(a.obj(list(m.get("class", ("NSEntityMapping", "NSObject"))), fields))
    by_name = a.obj(["NSMutableDictionary", "NSDictionary", "NSObject"], {"NS.keys": [], "NS.objects": []})
    root = a.obj(list(root_class), {"NSEntityMappings": a.array(refs), "NSEntityMappingsByName": by_name})
    return a.data(root)


def cdm_expected():
    out = []
    for m in CDM_MAPPINGS:
        kinds = {0: "undefined", 1: "custom", 2: "add", 3: "remove", 4: "copy", 5: "transform"}
        name = m["name"] or (f'{m["source"]}To{m["destination"]}' if m.get("source") and m.get("destination")
                             else m.get("destination") or m.get("source"))
        d = {"name": name, "kind": kinds[m["type"]]}
        if m.get("source"):
            d["sourceEntityName"] = m["source"]
        if m.get("shash") is not None:
            d["sourceEntityVersionHash"] = m["shash"].hex()
        if m.get("destination"):
            d["destinationEntityName"] = m["destination"]
        if m.get("dhash") is not None:
            d["destinationEntityVersionHash"] = m["dhash"].hex()
        if m.get("expression"):
            d["sourceExpression"] = text(m["expression"])
        if m.get("policy"):
            d["migrationPolicyName"] = m["policy"]
        for key, items in (("attributeMappings", m["attributes"]), ("relationshipMappings", m["relationships"])):
            if items:
                d[key] = [{"name": n, **({"valueExpression": text(e)} if e is not None else {}), **({"userInfo": info} if info else {})}
                          for n, e, info in items]
        if m.get("userInfo"):
            d["userInfo"] = m["userInfo"]
        out.append(d)
    return {"format": "objectgraph-mapping-model", "formatVersion": 1, "entityMappings": out}


# --- the bad fixtures ------------------------------------------------------------------

def bad_json():
    def one(**fields):
        m = {"name": "BookToBook", "kind": "copy", "sourceEntityName": "Book", "destinationEntityName": "Book"}
        m.update(fields)
        return {k: v for k, v in m.items() if v is not None}

    def doc(*mappings, **top):
        d = {"format": "objectgraph-mapping-model", "formatVersion": 1, "entityMappings": list(mappings)}
        d.update(top)
        return json.dumps(d, indent=2, ensure_ascii=False) + "\n"

    files = {
        "json-not-json.json": '{"format": "objectgraph-mapping-model", "entityMappings": [\n',
        "json-wrong-format.json": doc(one(), format="objectgraph-model"),
        "json-future-version.json": doc(one(), formatVersion=2),
        "json-missing-name.json": doc(one(), one(name=None)),
        "json-unknown-kind.json": doc(one(kind="morph")),
        "json-short-hash.json": doc(one(sourceEntityVersionHash=HASH_A[:31].hex())),
        "json-bad-hex.json": doc(one(destinationEntityVersionHash="zz" * 32)),
        "json-duplicate-mapping.json": doc(one(), one(kind="transform")),
        "json-duplicate-property.json": doc(one(attributeMappings=[{"name": "title"}],
                                                 relationshipMappings=[{"name": "title", "valueExpression": "$source.title"}])),
        "json-expression-not-string.json": doc(one(attributeMappings=[{"name": "pages", "valueExpression": 42}])),
        "json-unknown-key.json": doc(one(sourceEntity="Book")),
        "json-userinfo-not-strings.json": doc(one(userInfo={"version": 2})),
        "json-custom-without-policy.json": doc(one(kind="custom")),
        "json-mappings-not-array.json": doc(entityMappings={"BookToBook": one()}),
        "json-property-without-name.json": doc(one(attributeMappings=[{"valueExpression": "$source.title"}])),
        "json-copy-without-source.json": doc(one(sourceEntityName=None)),
        "json-deep-nesting.json": '{"format": "objectgraph-mapping-model", "entityMappings": ' + "[" * 100000 + "]" * 100000 + "}\n",
        "json-not-an-object.json": doc(one(attributeMappings=["title"])),
    }
    for name, body in files.items():
        (BAD / name).write_text(body, encoding="utf-8")


def bad_xml():
    one = [dict(BLOG_MAPPINGS[1])]

    def write(name, body):
        d = BAD / name
        d.mkdir(parents=True, exist_ok=True)
        (d / "xcmapping.xml").write_text(body, encoding="utf-8")

    good = blog_xml(one)
    write("xml-not-xml.xcmappingmodel", "this is not <xml at all\n")
    write("xml-wrong-root.xcmappingmodel", good.replace("<database>", "<model>").replace("</database>", "</model>"))
    write("xml-no-mapping-model.xcmappingmodel", good.replace('type="XDDEVMAPPINGMODEL"', 'type="XDDEVSOMETHINGELSE"'))
    write("xml-unknown-type-name.xcmappingmodel", good.replace(">Transform<", ">Morph<"))
    write("xml-dangling-reference.xcmappingmodel", good.replace('idrefs="z110 z111"', 'idrefs="z110 z999"'))
    wrong = dict(BLOG_MAPPINGS[1])
    wrong["relationships"] = [("owner", None, True)]
    write("xml-wrong-reference-type.xcmappingmodel",
          blog_xml([wrong]).replace('destination="XDDEVATTRIBUTEMAPPING" idrefs="z110 z111"', 'destination="XDDEVATTRIBUTEMAPPING" idrefs="z110 z112"'))
    bad64 = blog_xml(one)
    start = bad64.index('<attribute name="valueexpressiondata" type="binary">') + len('<attribute name="valueexpressiondata" type="binary">')
    end = bad64.index("</attribute>", start)
    write("xml-bad-base64.xcmappingmodel", bad64[:start] + "!!not base64!!" + bad64[end:])
    write("xml-bad-archive.xcmappingmodel", bad64[:start] + b64lines(b"bplist00 truncated") + bad64[end:])
    write("xml-bad-mapping-number.xcmappingmodel", good.replace('type="int16">1<', 'type="int16">first<'))
    write("xml-property-without-name.xcmappingmodel", good.replace('<attribute name="name" type="string">karma</attribute>\n', ""))
    write("xml-duplicate-id.xcmappingmodel", good.replace('id="z111"', 'id="z110"'))
    write("xml-deep-nesting.xcmappingmodel", good.replace("</database>", "<x>" * 300 + "</x>" * 300 + "</database>"))
    write("xml-short-hash.xcmappingmodel", good.replace('<attribute name="mappingtypename"',
          attr("sourceentityversionhash", "binary", b64lines(HASH_A[:16])).strip() + '\n        <attribute name="mappingtypename"'))
    (BAD / "xml-missing-document.xcmappingmodel").mkdir(parents=True, exist_ok=True)
    (BAD / "xml-missing-document.xcmappingmodel" / "README").write_text("An .xcmappingmodel folder without xcmapping.xml.\n")
    subquery = dict(BLOG_MAPPINGS[1])
    subquery["attributes"] = [("name", ("raw", ["NSSubqueryExpression", "NSExpression", "NSObject"], {"NSExpressionType": 13}))]
    write("xml-unsupported-expression.xcmappingmodel", blog_xml([subquery]))
    write("xml-bad-bool.xcmappingmodel", good.replace('type="bool">1<', 'type="bool">maybe<'))
    write("xml-object-without-id.xcmappingmodel", good.replace('<object type="XDDEVATTRIBUTEMAPPING" id="z110">', '<object type="XDDEVATTRIBUTEMAPPING">'))


def bad_cdm():
    good = cdm_archive(CDM_MAPPINGS[:2])
    (BAD / "cdm-truncated.cdm").write_bytes(good[: len(good) // 2])
    (BAD / "cdm-not-a-plist.cdm").write_bytes(b"NSMappingModel, honestly\n")
    (BAD / "cdm-wrong-root.cdm").write_bytes(cdm_archive(CDM_MAPPINGS[:1], root_class=("NSManagedObjectModel", "NSObject")))
    m = dict(CDM_MAPPINGS[1], type=9)
    (BAD / "cdm-unknown-type.cdm").write_bytes(cdm_archive([m]))
    m = dict(CDM_MAPPINGS[1], shash=HASH_A[:20])
    (BAD / "cdm-short-hash.cdm").write_bytes(cdm_archive([m]))
    deep = keypath("x", var("source"))
    for _ in range(200):
        deep = func(deep, "uppercase:")
    m = dict(CDM_MAPPINGS[1], attributes=[("title", deep, {})])
    (BAD / "cdm-deep-expression.cdm").write_bytes(cdm_archive([m]))

    def cycle(a, fields):
        # A function expression whose operand is itself.
        selector = a.string("self")
        cls = a.cls(["NSFunctionExpression", "NSExpression", "NSObject"])
        index = len(a.objects)
        a.objects.append({"NSExpressionType": 4, "NSOperand": plistlib.UID(index), "NSSelectorName": selector, "$class": cls})
        fields["NSSourceExpression"] = plistlib.UID(index)
    (BAD / "cdm-cyclic-expression.cdm").write_bytes(cdm_archive([dict(CDM_MAPPINGS[1])], mutate=cycle))
    m = dict(CDM_MAPPINGS[1], name=7)
    (BAD / "cdm-name-not-string.cdm").write_bytes(cdm_archive([m]))
    m = dict(CDM_MAPPINGS[1], **{"class": ("NSString", "NSObject")})
    (BAD / "cdm-entity-not-a-mapping.cdm").write_bytes(cdm_archive([m]))
    m = dict(CDM_MAPPINGS[1], type=1)
    (BAD / "cdm-custom-without-policy.cdm").write_bytes(cdm_archive([m]))


# Each bad fixture: file, what the message must contain, the entity mapping it names ("-": none).
EXPECTED = [
    ("json-not-json.json", "not valid JSON", "-"),
    ("json-wrong-format.json", "not an ObjectGraph mapping model", "-"),
    ("json-future-version.json", "unsupported formatVersion", "-"),
    ("json-missing-name.json", "entity mapping #2 has no name", "-"),
    ("json-unknown-kind.json", "unknown kind 'morph'", "BookToBook"),
    ("json-short-hash.json", "must be 64 hexadecimal digits", "BookToBook"),
    ("json-bad-hex.json", "must be 64 hexadecimal digits", "BookToBook"),
    ("json-duplicate-mapping.json", "used by an earlier entity mapping", "BookToBook"),
    ("json-duplicate-property.json", "mapped twice", "BookToBook"),
    ("json-expression-not-string.json", "'valueExpression' must be a string", "BookToBook"),
    ("json-unknown-key.json", "unknown key 'sourceEntity'", "BookToBook"),
    ("json-userinfo-not-strings.json", "'version' is not a string", "BookToBook"),
    ("json-custom-without-policy.json", "needs a migration policy", "BookToBook"),
    ("json-mappings-not-array.json", "'entityMappings' must be an array", "-"),
    ("json-property-without-name.json", "attribute mapping #1 has no name", "BookToBook"),
    ("json-copy-without-source.json", "needs a source entity", "BookToBook"),
    ("json-deep-nesting.json", "not valid JSON", "-"),
    ("json-not-an-object.json", "attribute mapping #1 must be a JSON object", "BookToBook"),
    ("xml-not-xml.xcmappingmodel", "not well-formed XML", "-"),
    ("xml-wrong-root.xcmappingmodel", "not <database>", "-"),
    ("xml-no-mapping-model.xcmappingmodel", "there is no XDDEVMAPPINGMODEL object", "-"),
    ("xml-unknown-type-name.xcmappingmodel", "unknown mappingtypename 'Morph'", "UserToAuthor"),
    ("xml-dangling-reference.xcmappingmodel", "unknown object 'z999'", "UserToAuthor"),
    ("xml-wrong-reference-type.xcmappingmodel", "not XDDEVATTRIBUTEMAPPING", "UserToAuthor"),
    ("xml-bad-base64.xcmappingmodel", "not base64", "UserToAuthor"),
    ("xml-bad-archive.xcmappingmodel", "archived expression is unreadable", "UserToAuthor"),
    ("xml-bad-mapping-number.xcmappingmodel", "not an integer", "UserToAuthor"),
    ("xml-property-without-name.xcmappingmodel", "has no name", "UserToAuthor"),
    ("xml-duplicate-id.xcmappingmodel", "two objects have the id 'z110'", "-"),
    ("xml-deep-nesting.xcmappingmodel", "nested more than 256", "-"),
    ("xml-short-hash.xcmappingmodel", "has 16 bytes", "UserToAuthor"),
    ("xml-missing-document.xcmappingmodel", "has no xcmapping.xml", "-"),
    ("xml-unsupported-expression.xcmappingmodel", "unsupported archived expression of class NSSubqueryExpression", "UserToAuthor"),
    ("xml-bad-bool.xcmappingmodel", "not a bool", "UserToAuthor"),
    ("xml-object-without-id.xcmappingmodel", "has no id", "-"),
    ("cdm-truncated.cdm", "not a compiled mapping model", "-"),
    ("cdm-not-a-plist.cdm", "not a compiled mapping model", "-"),
    ("cdm-wrong-root.cdm", "not an NSMappingModel", "-"),
    ("cdm-unknown-type.cdm", "unknown NSMappingType 9", "BookToBook"),
    ("cdm-short-hash.cdm", "has 20 bytes", "BookToBook"),
    ("cdm-deep-expression.cdm", "nests more than 64 levels", "BookToBook"),
    ("cdm-cyclic-expression.cdm", "nests more than 64 levels", "BookToBook"),
    ("cdm-name-not-string.cdm", "NSMappingName is not a string", "#1"),
    ("cdm-entity-not-a-mapping.cdm", "not an NSEntityMapping", "#1"),
    ("cdm-custom-without-policy.cdm", "needs a migration policy", "BookToBook"),
]


def main():
    for d in (GOOD, BAD):
        if d.exists():
            shutil.rmtree(d)
        d.mkdir(parents=True)
    (GOOD / "Library.json").write_text(json.dumps(library_json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    (GOOD / "Blog.xcmappingmodel").mkdir()
    (GOOD / "Blog.xcmappingmodel" / "xcmapping.xml").write_text(blog_xml(), encoding="utf-8")
    (GOOD / "Blog.expected.json").write_text(json.dumps(blog_expected(), indent=2) + "\n", encoding="utf-8")
    (GOOD / "Library.cdm").write_bytes(cdm_archive(CDM_MAPPINGS))
    (GOOD / "Library-cdm.expected.json").write_text(json.dumps(cdm_expected(), indent=2) + "\n", encoding="utf-8")
    (GOOD / "Empty.json").write_text('{"format": "objectgraph-mapping-model", "formatVersion": 1, "entityMappings": []}\n')
    bad_json()
    bad_xml()
    bad_cdm()
    (BAD / "EXPECTED.tsv").write_text("".join("\t".join(row) + "\n" for row in EXPECTED), encoding="utf-8")


if __name__ == "__main__":
    main()
