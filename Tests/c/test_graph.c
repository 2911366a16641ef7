/* The object graph from C: uniquing, inverses, delete rules, pending-change
 * sets, validation, rollback, reset and refresh, notifications, hooks, key
 * paths and committed values, queue contexts, and a library scenario edited
 * over several saves and reopened.
 *
 * The model (built in code):
 *   Author: name (string, required, 1-40 chars), books (to-many Book, cascade)
 *   Book:   title (string, required), pages (int32, 1..5000), author (to-one, nullify),
 *           loans (to-many Loan, deny), tags (to-many Tag, nullify)
 *   Loan:   borrower (string, required), book (to-one Book, required, nullify)
 *   Tag:    name (string), book (to-one Book, nullify)
 * Tags are to-many with a to-one inverse: the SQLite store does not keep
 * many-to-many relationships yet. */
#include "og_test_cases.h"

#include <pthread.h>

static og_property *attr(og_entity *e, const char *name, og_attribute_type type, bool optional) {
    og_property *p = NN(og_entity_add_attribute(e, name, type, &err));
    OK(og_property_set_optional(p, optional, &err));
    return p;
}

static og_property *rel(og_entity *e, const char *name, og_entity *dest, bool to_many, og_delete_rule rule) {
    og_property *p = NN(og_entity_add_relationship(e, name, dest, &err));
    OK(og_relationship_set_to_many(p, to_many, &err));
    OK(og_relationship_set_delete_rule(p, rule, &err));
    return p;
}

static og_coordinator *graph_open(const char *path) {
    og_model *m = NN(og_model_new());
    og_entity *author = NN(og_model_add_entity(m, "Author", &err));
    og_entity *book = NN(og_model_add_entity(m, "Book", &err));
    og_entity *loan = NN(og_model_add_entity(m, "Loan", &err));
    og_entity *tag = NN(og_model_add_entity(m, "Tag", &err));
    og_property *name = attr(author, "name", OG_ATTRIBUTE_STRING, false);
    OK(og_attribute_set_length_bounds(name, 1, 40, &err));
    attr(book, "title", OG_ATTRIBUTE_STRING, false);
    og_property *pages = attr(book, "pages", OG_ATTRIBUTE_INTEGER32, true);
    og_value *lo = og_value_new_int64(1), *hi = og_value_new_int64(5000);
    OK(og_attribute_set_value_bounds(pages, lo, hi, &err));
    og_value_release(lo);
    og_value_release(hi);
    attr(loan, "borrower", OG_ATTRIBUTE_STRING, false);
    attr(tag, "name", OG_ATTRIBUTE_STRING, true);

    og_property *books = rel(author, "books", book, true, OG_DELETE_RULE_CASCADE);
    og_property *book_author = rel(book, "author", author, false, OG_DELETE_RULE_NULLIFY);
    OK(og_relationship_set_inverse(books, book_author, &err));
    og_property *loans = rel(book, "loans", loan, true, OG_DELETE_RULE_DENY);
    og_property *loan_book = rel(loan, "book", book, false, OG_DELETE_RULE_NULLIFY);
    OK(og_property_set_optional(loan_book, false, &err));
    OK(og_relationship_set_inverse(loans, loan_book, &err));
    og_property *tags = rel(book, "tags", tag, true, OG_DELETE_RULE_NULLIFY);
    og_property *tag_book = rel(tag, "book", book, false, OG_DELETE_RULE_NULLIFY);
    OK(og_relationship_set_inverse(tags, tag_book, &err));

    og_coordinator *c = NN(og_coordinator_new(m, &err));
    og_model_release(m);
    NN(og_coordinator_add_store(c, "SQLite", path, &err));
    return c;
}

/* A fresh store and a confinement context over it. */
static char *dir, *path;
static og_coordinator *coordinator;
static og_context *ctx;

static void setup(void) {
    dir = og_t_tempdir();
    path = og_t_path(dir, "graph.sqlite");
    coordinator = graph_open(path);
    ctx = NN(og_context_new(coordinator, &err));
}

static void teardown(void) {
    og_context_release(ctx);
    og_coordinator_release(coordinator);
    free(path);
    og_t_remove_tree(dir);
}

static og_object *new_author(const char *name) {
    og_object *a = NN(og_context_insert(ctx, "Author", &err));
    OK(og_object_set_string(a, "name", name, &err));
    return a;
}

static og_object *new_book(const char *title, og_object *author) {
    og_object *b = NN(og_context_insert(ctx, "Book", &err));
    OK(og_object_set_string(b, "title", title, &err));
    if (author) OK(og_object_set_object(b, "author", author, &err));
    return b;
}

static bool flag(og_status (*get)(const og_object *, bool *, og_error **), og_object *o) {
    bool b = false;
    OK(get(o, &b, &err));
    return b;
}

static size_t count_set(int which) {
    og_results *r = NN(og_context_objects(ctx, which, &err));
    size_t n = og_results_count(r);
    og_results_release(r);
    return n;
}

static size_t related_count(og_object *o, const char *key) {
    og_results *r = NN(og_object_get_related(o, key, &err));
    size_t n = og_results_count(r);
    og_results_release(r);
    return n;
}

static char *string_of(og_object *o, const char *key) {
    char *s = NULL;
    og_status st = og_object_get_string(o, key, &s, &err);
    CHECK(st != OG_ERROR);
    return s;
}

static void expect_string(og_object *o, const char *key, const char *want) {
    char *s = string_of(o, key);
    STREQ(s, want);
    og_free(s);
}

/* ---- uniquing ------------------------------------------------------------ */

static void uniquing(void) {
    setup();
    og_object *a = new_author("Ursula");
    char *temp_uri = NN(og_object_id_uri(a, &err));
    og_object *found = NULL;
    OK(og_context_object_registered(ctx, temp_uri, &found, &err));
    CHECK(found == a);
    og_free(temp_uri);
    OK(og_context_save(ctx, &err));

    char *uri = NN(og_object_id_uri(a, &err));
    og_fetch_request *req = NN(og_fetch_request_new("Author", &err));
    og_results *r1 = NN(og_context_fetch(ctx, req, &err));
    og_results *r2 = NN(og_context_fetch(ctx, req, &err));
    CHECK(NN(og_results_object_at(r1, 0, &err)) == a);
    CHECK(NN(og_results_object_at(r2, 0, &err)) == a);
    CHECK(NN(og_context_object_with_uri(ctx, uri, &err)) == a);
    CHECK(NN(og_context_existing_object(ctx, uri, &err)) == a);
    OK(og_context_object_registered(ctx, uri, &found, &err));
    CHECK(found == a);
    size_t n;
    OK(og_context_registered_count(ctx, &n, &err));
    CHECK(n >= 1);

    /* Another context has its own object for the same row. */
    og_context *other = NN(og_context_new(coordinator, &err));
    IS_NULL(og_context_object_registered(other, uri, &found, &err));
    CHECK(found == NULL);
    og_object *fault = NN(og_context_object_with_uri(other, uri, &err));
    CHECK(fault != a);
    CHECK(flag(og_object_is_fault, fault));
    expect_string(fault, "name", "Ursula");
    CHECK(!flag(og_object_is_fault, fault));
    int64_t state = -1;
    OK(og_object_faulting_state(fault, &state, &err));
    INTEQ(state, 0);

    /* The row goes away: existing_object reports 133000, never crashes. */
    OK(og_context_delete(ctx, a, &err));
    OK(og_context_save(ctx, &err));
    og_context *third = NN(og_context_new(coordinator, &err));
    OK(og_context_set_should_delete_inaccessible_faults(third, false, &err));
    FAILS_NULL(og_context_existing_object(third, uri, &err), OG_ERROR_REFERENTIAL_INTEGRITY, "exist");
    FAILS_NULL(og_context_existing_object(third, "not a uri", &err), OG_ERROR_INVALID_ARGUMENT, "uri");
    og_object *gone = NN(og_context_object_with_uri(third, uri, &err));
    char *s;
    FAILS(og_object_get_string(gone, "name", &s, &err), OG_ERROR_REFERENTIAL_INTEGRITY, "exist");
    og_context_release(third);
    og_context_release(other);
    og_results_release(r1);
    og_results_release(r2);
    og_fetch_request_release(req);
    og_free(uri);
    teardown();
}

/* ---- inverses ------------------------------------------------------------ */

static void inverses(void) {
    setup();
    og_object *a = new_author("Terry"), *b = new_author("Neil");
    og_object *book = new_book("Good Omens", a);
    INTEQ(related_count(a, "books"), 1);
    /* Moving the book: the old author's set loses it. */
    OK(og_object_set_object(book, "author", b, &err));
    INTEQ(related_count(a, "books"), 0);
    INTEQ(related_count(b, "books"), 1);
    /* Adding to the to-many sets the to-one. */
    OK(og_object_add_related(a, "books", book, &err));
    og_object *who = NULL;
    OK(og_object_get_object(book, "author", &who, &err));
    CHECK(who == a);
    INTEQ(related_count(b, "books"), 0);
    OK(og_object_remove_related(a, "books", book, &err));
    IS_NULL(og_object_get_object(book, "author", &who, &err));
    OK(og_object_set_object(book, "author", a, &err));
    OK(og_context_save(ctx, &err));
    /* After a save, a fresh context sees the same graph. */
    og_context *other = NN(og_context_new(coordinator, &err));
    char *uri = NN(og_object_id_uri(a, &err));
    og_object *a2 = NN(og_context_existing_object(other, uri, &err));
    bool faulted;
    OK(og_object_has_fault_for_relationship(a2, "books", &faulted, &err));
    CHECK(faulted);
    INTEQ(related_count(a2, "books"), 1);
    OK(og_object_has_fault_for_relationship(a2, "books", &faulted, &err));
    CHECK(!faulted);
    FAILS(og_object_has_fault_for_relationship(a2, "name", &faulted, &err), OG_ERROR_TYPE_MISMATCH, "relationship");
    og_free(uri);
    og_context_release(other);
    teardown();
}

/* ---- delete rules -------------------------------------------------------- */

static void delete_rules(void) {
    setup();
    og_object *a = new_author("Iain");
    og_object *b1 = new_book("Excession", a), *b2 = new_book("Matter", a);
    og_object *tag = NN(og_context_insert(ctx, "Tag", &err));
    OK(og_object_set_object(tag, "book", b2, &err));
    og_object *loan = NN(og_context_insert(ctx, "Loan", &err));
    OK(og_object_set_string(loan, "borrower", "Ann", &err));
    OK(og_object_set_object(loan, "book", b1, &err));
    OK(og_context_save(ctx, &err));

    /* Deny: b1 has a loan, so deleting it (by cascade) fails at save with 1600. */
    OK(og_context_delete(ctx, a, &err));
    CHECK(flag(og_object_is_deleted, b1));
    CHECK(flag(og_object_is_deleted, b2));
    FAILS(og_context_save(ctx, &err), OG_ERROR_VALIDATION_DENIED_DELETE, "deny");
    OK(og_context_rollback(ctx, &err));
    CHECK(!flag(og_object_is_deleted, a));

    /* Return the loan, then the cascade goes through; nullify clears the tag. */
    OK(og_context_delete(ctx, loan, &err));
    OK(og_context_delete(ctx, a, &err));
    OK(og_context_save(ctx, &err));
    og_object *owner = (og_object *)1;
    IS_NULL(og_object_get_object(tag, "book", &owner, &err));
    og_fetch_request *req = NN(og_fetch_request_new("Book", &err));
    size_t n;
    OK(og_context_count(ctx, req, &n, &err));
    INTEQ(n, 0);
    og_fetch_request_release(req);

    /* Deferred propagation: rules apply only at save. */
    bool on;
    OK(og_context_propagates_deletes(ctx, &on, &err));
    CHECK(on);
    OK(og_context_set_propagates_deletes(ctx, false, &err));
    og_object *a2 = new_author("Ann");
    og_object *b3 = new_book("Later", a2);
    OK(og_context_save(ctx, &err));
    OK(og_context_delete(ctx, a2, &err));
    OK(og_context_process_pending_changes(ctx, &err));
    CHECK(!flag(og_object_is_deleted, b3));
    OK(og_context_save(ctx, &err));
    req = NN(og_fetch_request_new("Book", &err));
    OK(og_context_count(ctx, req, &n, &err));
    INTEQ(n, 0);
    og_fetch_request_release(req);

    /* Deleting an unsaved insert forgets it. */
    og_object *fresh = new_author("Gone");
    OK(og_context_delete(ctx, fresh, &err));
    OK(og_context_process_pending_changes(ctx, &err));
    INTEQ(count_set(OG_OBJECTS_INSERTED), 0);
    INTEQ(count_set(OG_OBJECTS_DELETED), 0);
    teardown();
}

/* ---- pending-change sets ------------------------------------------------- */

static void pending_sets(void) {
    setup();
    og_object *a = new_author("Kim");
    og_object *b = new_book("Aurora", a);
    INTEQ(count_set(OG_OBJECTS_INSERTED), 2);
    INTEQ(count_set(OG_OBJECTS_UPDATED), 0);
    OK(og_context_save(ctx, &err));
    INTEQ(count_set(OG_OBJECTS_INSERTED), 0);
    bool changes;
    OK(og_context_has_changes(ctx, &changes, &err));
    CHECK(!changes);

    OK(og_object_set_int64(b, "pages", 500, &err));
    INTEQ(count_set(OG_OBJECTS_UPDATED), 1);
    CHECK(flag(og_object_is_updated, b));
    og_object *c = new_book("Red Mars", a);   /* a gains a book: a is updated too */
    INTEQ(count_set(OG_OBJECTS_INSERTED), 1);
    INTEQ(count_set(OG_OBJECTS_UPDATED), 2);
    OK(og_context_delete(ctx, b, &err));
    INTEQ(count_set(OG_OBJECTS_DELETED), 1);
    /* A deleted object is not also updated; an inserted one never is. */
    og_results *updated = NN(og_context_objects(ctx, OG_OBJECTS_UPDATED, &err));
    for (size_t i = 0; i < og_results_count(updated); i++) {
        og_object *o = NN(og_results_object_at(updated, i, &err));
        CHECK(o != b && o != c);
    }
    og_results_release(updated);
    FAILS_NULL(og_context_objects(ctx, 9, &err), OG_ERROR_INVALID_ARGUMENT, "og_object_set");

    /* Registered objects: unchanged ones are held weakly unless retained. */
    bool retains;
    OK(og_context_retains_registered_objects(ctx, &retains, &err));
    CHECK(!retains);
    OK(og_context_set_retains_registered_objects(ctx, true, &err));
    OK(og_context_retains_registered_objects(ctx, &retains, &err));
    CHECK(retains);
    size_t n;
    OK(og_context_registered_count(ctx, &n, &err));
    CHECK(n >= 2);
    INTEQ(count_set(OG_OBJECTS_REGISTERED), n);

    /* Permanent IDs before the save. */
    bool temporary;
    OK(og_object_has_temporary_id(c, &temporary, &err));
    CHECK(temporary);
    og_object *list[1] = {c};
    OK(og_context_obtain_permanent_ids(ctx, list, 1, &err));
    OK(og_object_has_temporary_id(c, &temporary, &err));
    CHECK(!temporary);
    CHECK(flag(og_object_is_inserted, c));
    char *uri = NN(og_object_id_uri(c, &err));
    OK(og_context_save(ctx, &err));
    char *after = NN(og_object_id_uri(c, &err));
    STREQ(uri, after);
    og_free(uri);
    og_free(after);
    FAILS(og_context_obtain_permanent_ids(ctx, NULL, 1, &err), OG_ERROR_INVALID_ARGUMENT, "NULL");

    /* userInfo */
    char *v;
    IS_NULL(og_context_user_info(ctx, "who", &v, &err));
    OK(og_context_set_user_info(ctx, "who", "tests", &err));
    OK(og_context_user_info(ctx, "who", &v, &err));
    STREQ(v, "tests");
    og_free(v);
    OK(og_context_set_user_info(ctx, "who", NULL, &err));
    IS_NULL(og_context_user_info(ctx, "who", &v, &err));
    teardown();
}

/* ---- validation ---------------------------------------------------------- */

static int insert_checks;

static og_status refuse_short_titles(og_object *o, og_error **e, void *user) {
    (void)user;
    insert_checks++;
    char *t = string_of(o, "title");
    og_status st = OG_OK;
    if (t && strlen(t) < 2) {
        *e = og_error_new(OG_ERROR_VALIDATION, "a title needs two letters", "title");
        st = OG_ERROR;
    }
    og_free(t);
    return st;
}

static og_status refuse_negative(og_object *o, const char *key, const og_value *value, og_error **e, void *user) {
    (void)o; (void)e; (void)user;
    int64_t i;
    if (strcmp(key, "pages") == 0 && og_value_get_int64(value, &i, NULL) == OG_OK && i == 13) return OG_ERROR;
    return OG_OK;
}

/* A to-many is checked against its counts alone: empty and non-optional is valid
 * with a minimum of 0; below a minimum is OG_ERROR_VALIDATION_RELATIONSHIP_TOO_FEW. */
static void to_many_counts(void) {
    og_model *model = og_model_new();
    og_entity *shelf = NN(og_model_add_entity(model, "Shelf", &err));
    og_entity *book = NN(og_model_add_entity(model, "Book", &err));
    og_property *books = NN(og_entity_add_relationship(shelf, "books", book, &err));
    OK(og_relationship_set_to_many(books, true, &err));
    OK(og_property_set_optional(books, false, &err));
    og_property *pairs = NN(og_entity_add_relationship(shelf, "pairs", book, &err));
    OK(og_relationship_set_to_many(pairs, true, &err));
    OK(og_relationship_set_counts(pairs, 2, 3, &err));
    og_coordinator *coordinator = NN(og_coordinator_new(model, &err));
    NN(og_coordinator_add_store(coordinator, "InMemory", "", &err));
    og_context *c = NN(og_context_new(coordinator, &err));
    og_object *s = NN(og_context_insert(c, "Shelf", &err));
    OK(og_context_save(c, &err)); /* books empty (minimum 0), pairs empty and optional */
    og_object *one = NN(og_context_insert(c, "Book", &err));
    OK(og_object_add_related(s, "pairs", one, &err));
    FAILS(og_context_save(c, &err), OG_ERROR_VALIDATION_RELATIONSHIP_TOO_FEW, "pairs");
    og_object *two = NN(og_context_insert(c, "Book", &err));
    OK(og_object_add_related(s, "pairs", two, &err));
    OK(og_context_save(c, &err));
    og_context_release(c);
    og_coordinator_release(coordinator);
    og_model_release(model);
}

static void validation(void) {
    setup();
    og_object *a = NN(og_context_insert(ctx, "Author", &err));   /* no name: required */
    /* The checks a save runs, on one object, without saving. */
    FAILS(og_object_validate(a, OG_VALIDATE_FOR_INSERT, &err), OG_ERROR_VALIDATION_MISSING_MANDATORY, "name|required");
    OK(og_object_validate(a, OG_VALIDATE_FOR_DELETE, &err));
    FAILS(og_object_validate(a, OG_VALIDATE_WILL_SAVE, &err), OG_ERROR_INVALID_ARGUMENT, "OG_VALIDATE_FOR_INSERT");
    bool changed = false;
    OK(og_object_has_changes(a, &changed, &err));
    CHECK(changed);
    FAILS(og_context_save(ctx, &err), OG_ERROR_VALIDATION_MISSING_MANDATORY, "name|required");
    OK(og_object_set_string(a, "name", "", &err));              /* too short */
    og_object *b = new_book("Ok", a);
    OK(og_object_set_int64(b, "pages", 9000, &err));             /* too large */
    CHECK(og_context_save(ctx, &err) == OG_ERROR);
    INTEQ(og_error_code(err), OG_ERROR_VALIDATION_MULTIPLE);
    INTEQ(og_error_detail_count(err), 2);
    bool saw_pages = false, saw_name = false;
    for (size_t i = 0; i < 2; i++) {
        const og_error *d = og_error_detail_at(err, i);
        const char *key = og_error_user_info(d, "NSValidationErrorKey");
        CHECK(key != NULL);
        CHECK(og_error_user_info(d, "NSValidationErrorObject") != NULL);
        if (strcmp(key, "pages") == 0) {
            saw_pages = true;
            INTEQ(og_error_code(d), OG_ERROR_VALIDATION_NUMBER_TOO_LARGE);
            STREQ(og_error_user_info(d, "NSValidationErrorValue"), "9000");
        }
        if (strcmp(key, "name") == 0) {
            saw_name = true;
            INTEQ(og_error_code(d), OG_ERROR_VALIDATION_STRING_TOO_SHORT);
        }
    }
    CHECK(saw_pages && saw_name);
    og_t_clear();
    /* Nothing was written; the changes are still pending. */
    bool changes;
    OK(og_context_has_changes(ctx, &changes, &err));
    CHECK(changes);

    /* Validating a single value does not change the object. */
    og_value *v = og_value_new_int64(0);
    FAILS(og_object_validate_value(b, "pages", v, &err), OG_ERROR_VALIDATION_NUMBER_TOO_SMALL, "minimum|small");
    og_value_release(v);
    v = og_value_new_int64(10);
    OK(og_object_validate_value(b, "pages", v, &err));
    og_value_release(v);

    /* Hooks: a validate-for-insert refusal, and a value validator. */
    OK(og_context_set_validation_hook(ctx, "Book", OG_VALIDATE_FOR_INSERT, refuse_short_titles, NULL, &err));
    OK(og_context_set_value_validator(ctx, "Book", refuse_negative, NULL, &err));
    OK(og_object_set_string(a, "name", "Ada", &err));
    OK(og_object_set_int64(b, "pages", 13, &err));
    OK(og_object_set_string(b, "title", "X", &err));
    /* The value validator fails first: validateForInsert stops at its property checks. */
    FAILS(og_context_save(ctx, &err), OG_ERROR_VALIDATION, "hook|pages");
    v = og_value_new_int64(13);
    FAILS(og_object_validate_value(b, "pages", v, &err), OG_ERROR_VALIDATION, "hook|pages");
    og_value_release(v);
    OK(og_object_set_int64(b, "pages", 12, &err));
    FAILS(og_context_save(ctx, &err), OG_ERROR_VALIDATION, "two letters");
    OK(og_object_set_string(b, "title", "Xy", &err));
    OK(og_context_save(ctx, &err));
    CHECK(insert_checks >= 2);
    FAILS(og_context_set_validation_hook(ctx, "Book", 7, refuse_short_titles, NULL, &err), OG_ERROR_INVALID_ARGUMENT, "og_validation_kind");
    FAILS(og_context_set_hook(ctx, "Nope", OG_HOOK_WILL_SAVE, NULL, NULL, &err), OG_ERROR_UNKNOWN_ENTITY, "Nope");
    /* og_error_new in other domains */
    og_error *e = NN(og_error_new(OG_ERROR_INVALID_ARGUMENT, NULL, NULL));
    STREQ(og_error_domain(e), OG_ERROR_DOMAIN_OBJECTGRAPH);
    og_error_release(e);
    teardown();
}

/* ---- rollback, reset, refresh ------------------------------------------- */

static int snapshot_events, turned_into_fault;
static void count_snapshot(og_object *o, void *user) { (void)o; (void)user; snapshot_events++; }
static void count_fault(og_object *o, void *user) { (void)o; (void)user; turned_into_fault++; }

static int invalidated_all;
static void on_change(const og_notification *n, void *user) {
    (void)user;
    if (og_notification_invalidated_all(n)) invalidated_all++;
}

static void rollback_reset_refresh(void) {
    setup();
    og_object *a = new_author("Octavia");
    og_object *b = new_book("Kindred", a);
    OK(og_context_save(ctx, &err));
    OK(og_context_set_hook(ctx, "Book", OG_HOOK_AWAKE_FROM_SNAPSHOT_EVENTS, count_snapshot, NULL, &err));
    OK(og_context_set_hook(ctx, "Book", OG_HOOK_DID_TURN_INTO_FAULT, count_fault, NULL, &err));

    OK(og_object_set_string(b, "title", "Dawn", &err));
    og_object *c = new_book("Wild Seed", a);
    OK(og_context_delete(ctx, a, &err));
    OK(og_context_rollback(ctx, &err));
    expect_string(b, "title", "Kindred");
    CHECK(!flag(og_object_is_deleted, a));
    CHECK(!flag(og_object_is_deleted, b));
    INTEQ(related_count(a, "books"), 1);
    char *s;
    FAILS(og_object_get_string(c, "title", &s, &err), OG_ERROR_OBJECT_INACCESSIBLE, "context");
    CHECK(snapshot_events >= 1);
    bool changes;
    OK(og_context_has_changes(ctx, &changes, &err));
    CHECK(!changes);

    /* refresh without merging: back to a fault, the change is gone. */
    OK(og_object_set_string(b, "title", "Dawn", &err));
    OK(og_context_refresh_object(ctx, b, false, &err));
    CHECK(flag(og_object_is_fault, b));
    INTEQ(turned_into_fault, 1);
    expect_string(b, "title", "Kindred");

    /* refresh merging: another context's saved change comes in, ours stays. */
    og_context *other = NN(og_context_new(coordinator, &err));
    char *uri = NN(og_object_id_uri(b, &err));
    og_object *b2 = NN(og_context_existing_object(other, uri, &err));
    OK(og_object_set_int64(b2, "pages", 321, &err));
    OK(og_context_save(other, &err));
    OK(og_object_set_string(b, "title", "Mine", &err));
    OK(og_context_refresh_object(ctx, b, true, &err));
    expect_string(b, "title", "Mine");
    int64_t pages;
    OK(og_object_get_int64(b, "pages", &pages, &err));
    INTEQ(pages, 321);
    og_free(uri);
    og_context_release(other);

    /* reset: every object handle the context lent is released; observers hear invalidated_all. */
    uint64_t token;
    OK(og_context_add_observer(ctx, OG_NOTIFICATION_OBJECTS_DID_CHANGE, on_change, NULL, &token, &err));
    OK(og_context_reset(ctx, &err));
    INTEQ(invalidated_all, 1);
    FAILS(og_object_get_string(b, "title", &s, &err), OG_ERROR_INVALID_HANDLE, "released");
    bool f;
    FAILS(og_object_has_fault_for_relationship(a, "books", &f, &err), OG_ERROR_INVALID_HANDLE, "released");
    size_t n;
    OK(og_context_registered_count(ctx, &n, &err));
    INTEQ(n, 0);
    OK(og_context_remove_observer(ctx, token, &err));
    FAILS(og_context_remove_observer(ctx, token, &err), OG_ERROR_INVALID_ARGUMENT, "token");
    teardown();
}

/* ---- notifications ------------------------------------------------------- */

typedef struct {
    int calls, will_save, did_save;
    size_t inserted, updated, deleted, refreshed, invalidated;
    og_object *first_inserted;
} seen_t;

static void record(const og_notification *n, void *user) {
    seen_t *s = user;
    s->calls++;
    switch (og_notification_kind_of(n)) {
    case OG_NOTIFICATION_WILL_SAVE: s->will_save++; return;
    case OG_NOTIFICATION_DID_SAVE: s->did_save++; break;
    default: break;
    }
    s->inserted += og_notification_count(n, OG_NOTIFICATION_INSERTED);
    s->updated += og_notification_count(n, OG_NOTIFICATION_UPDATED);
    s->deleted += og_notification_count(n, OG_NOTIFICATION_DELETED);
    s->refreshed += og_notification_count(n, OG_NOTIFICATION_REFRESHED);
    s->invalidated += og_notification_count(n, OG_NOTIFICATION_INVALIDATED);
    if (og_notification_count(n, OG_NOTIFICATION_INSERTED) > 0 && s->first_inserted == NULL)
        s->first_inserted = og_notification_object_at(n, OG_NOTIFICATION_INSERTED, 0, NULL);
}

static void notifications(void) {
    setup();
    seen_t change = {0}, will = {0}, did = {0};
    uint64_t t1, t2, t3;
    OK(og_context_add_observer(ctx, OG_NOTIFICATION_OBJECTS_DID_CHANGE, record, &change, &t1, &err));
    OK(og_context_add_observer(ctx, OG_NOTIFICATION_WILL_SAVE, record, &will, &t2, &err));
    OK(og_context_add_observer(ctx, OG_NOTIFICATION_DID_SAVE, record, &did, &t3, &err));
    og_object *a = new_author("Jo");
    OK(og_context_process_pending_changes(ctx, &err));
    INTEQ(change.calls, 1);
    INTEQ(change.inserted, 1);
    CHECK(change.first_inserted == a);
    OK(og_context_process_pending_changes(ctx, &err));   /* nothing new: no notification */
    INTEQ(change.calls, 1);
    og_object *b = new_book("Lud", a);
    OK(og_context_save(ctx, &err));
    INTEQ(will.will_save, 1);
    INTEQ(did.did_save, 1);
    INTEQ(did.inserted, 2);
    OK(og_object_set_int64(b, "pages", 3, &err));
    OK(og_context_save(ctx, &err));
    INTEQ(did.updated, 1);
    OK(og_context_delete(ctx, b, &err));
    OK(og_context_save(ctx, &err));
    INTEQ(did.deleted, 1);
    CHECK(change.deleted >= 1);
    OK(og_context_refresh_object(ctx, a, false, &err));
    OK(og_context_process_pending_changes(ctx, &err));
    INTEQ(change.refreshed, 1);

    /* A removed observer is never called again. */
    OK(og_context_remove_observer(ctx, t1, &err));
    OK(og_context_remove_observer(ctx, t3, &err));
    int before = change.calls, saves = did.calls;
    new_author("Later");
    OK(og_context_save(ctx, &err));
    INTEQ(change.calls, before);
    INTEQ(did.calls, saves);
    INTEQ(will.will_save, 4);
    FAILS(og_context_add_observer(ctx, 5, record, &change, &t1, &err), OG_ERROR_INVALID_ARGUMENT, "og_notification_kind");
    INTEQ(og_notification_kind_of(NULL), -1);
    INTEQ(og_notification_count(NULL, 0), 0);
    CHECK(!og_notification_invalidated_all(NULL));
    FAILS_NULL(og_notification_object_at(NULL, 0, 0, &err), OG_ERROR_INVALID_HANDLE, "notification");
    teardown();
}

/* Edits and deletes of an object still pending insert, in a later event, are reported. */
static void pending_insert_changes(void) {
    setup();
    og_object *a = new_author("Jo");
    OK(og_context_process_pending_changes(ctx, &err));
    seen_t change = {0};
    uint64_t token;
    OK(og_context_add_observer(ctx, OG_NOTIFICATION_OBJECTS_DID_CHANGE, record, &change, &token, &err));
    OK(og_object_set_string(a, "name", "Jon", &err));
    OK(og_context_process_pending_changes(ctx, &err));
    INTEQ(change.calls, 1);
    INTEQ(change.updated, 1);
    INTEQ(change.inserted, 0);
    OK(og_context_delete(ctx, a, &err));
    OK(og_context_process_pending_changes(ctx, &err));
    INTEQ(change.calls, 2);
    INTEQ(change.deleted, 1);
    /* Inserted and deleted in one event: the two cancel out. */
    og_object *b = new_author("Brief");
    OK(og_context_delete(ctx, b, &err));
    OK(og_context_process_pending_changes(ctx, &err));
    INTEQ(change.calls, 2);
    OK(og_context_remove_observer(ctx, token, &err));
    teardown();
}

/* ---- hooks --------------------------------------------------------------- */

static int awake_insert, awake_fetch, will_save, did_save, prepare_delete, will_fault;

static void on_insert(og_object *o, void *user) {
    awake_insert++;
    OK(og_object_set_string(o, "title", (const char *)user, &err));
}
static void on_fetch(og_object *o, void *user) { (void)o; (void)user; awake_fetch++; }
static void on_will_save(og_object *o, void *user) {
    (void)user;
    will_save++;
    /* A change made in willSave is saved too (and willSave runs once more). */
    int64_t p = 0;
    if (og_object_get_int64(o, "pages", &p, NULL) == OG_NULL) OK(og_object_set_int64(o, "pages", 1, &err));
}
static void on_did_save(og_object *o, void *user) { (void)o; (void)user; did_save++; }
static void on_prepare(og_object *o, void *user) { (void)o; (void)user; prepare_delete++; }
static void on_will_fault(og_object *o, void *user) { (void)o; (void)user; will_fault++; }

/* A will-save hook that refuses: the save fails before anything is written. */
static og_status refuse_save(og_object *o, og_error **error, void *user) {
    (void)o;
    (void)user;
    *error = og_error_new_in_domain("com.example.shelf", 7777, "not today", NULL);
    return OG_ERROR;
}

static void refusing_will_save(void) {
    setup();
    og_object *b = NN(og_context_insert(ctx, "Book", &err));
    OK(og_object_set_string(b, "title", "Refused", &err));
    OK(og_context_set_validation_hook(ctx, "Book", OG_VALIDATE_WILL_SAVE, refuse_save, NULL, &err));
    CHECK(og_context_save(ctx, &err) == OG_ERROR);
    INTEQ(og_error_code(err), 7777); /* the hook's own domain and code */
    STREQ(og_error_domain(err), "com.example.shelf");
    og_error_release(err);
    err = NULL;
    og_context *other = NN(og_context_new(coordinator, &err));
    og_fetch_request *req = NN(og_fetch_request_new("Book", &err));
    size_t n = 99;
    OK(og_context_count(other, req, &n, &err));
    INTEQ(n, 0);
    og_fetch_request_release(req);
    og_context_release(other);
    OK(og_context_set_validation_hook(ctx, "Book", OG_VALIDATE_WILL_SAVE, NULL, NULL, &err));
    OK(og_context_save(ctx, &err));
    teardown();
}

/* A value read of the thread's last looked-up object can run a hook that gives back the
 * very handle being read: the read finishes on a live object, and the handle is invalid
 * afterwards. */
static og_context *giving_back_context;
static og_object *giving_back_handle;
static int gave_back;
static void give_back_on_fetch(og_object *o, void *user) {
    (void)o;
    (void)user;
    og_error *e = NULL;
    if (og_context_release_objects(giving_back_context, &giving_back_handle, 1, &e) == OG_OK) gave_back++;
    og_error_release(e);
}

static void hook_gives_back_the_object_being_read(void) {
    setup();
    og_object *b = new_book("Parable", NULL);
    OK(og_object_set_int64(b, "pages", 345, &err));
    OK(og_context_save(ctx, &err));
    char *uri = NN(og_object_id_uri(b, &err));
    og_entity *book = NN(og_object_entity(b));
    int64_t slot = og_entity_slot(book, "pages", &err);
    CHECK(slot >= 0);
    og_context *other = NN(og_context_new(coordinator, &err));
    OK(og_context_set_hook(other, "Book", OG_HOOK_AWAKE_FROM_FETCH, give_back_on_fetch, NULL, &err));
    giving_back_context = other;
    giving_back_handle = NN(og_context_object_with_uri(other, uri, &err));
    bool fault = false;
    OK(og_object_is_fault(giving_back_handle, &fault, &err)); /* now the thread's cached lookup */
    CHECK(fault);
    int64_t pages = 0;
    OK(og_object_get_int64_at(giving_back_handle, (size_t)slot, &pages, &err));
    INTEQ(pages, 345);
    INTEQ(gave_back, 1);
    FAILS(og_object_get_int64_at(giving_back_handle, (size_t)slot, &pages, &err), OG_ERROR_INVALID_HANDLE, "released");
    /* The object itself is still the context's: looked up again, it answers. */
    og_object *again = NN(og_context_object_with_uri(other, uri, &err));
    OK(og_object_get_int64_at(again, (size_t)slot, &pages, &err));
    INTEQ(pages, 345);
    og_context_release(other);
    og_free(uri);
    teardown();
}

static void hooks(void) {
    setup();
    OK(og_context_set_hook(ctx, "Book", OG_HOOK_AWAKE_FROM_INSERT, on_insert, "Untitled", &err));
    OK(og_context_set_hook(ctx, "Book", OG_HOOK_AWAKE_FROM_FETCH, on_fetch, NULL, &err));
    OK(og_context_set_hook(ctx, "Book", OG_HOOK_WILL_SAVE, on_will_save, NULL, &err));
    OK(og_context_set_hook(ctx, "Book", OG_HOOK_DID_SAVE, on_did_save, NULL, &err));
    OK(og_context_set_hook(ctx, "Book", OG_HOOK_PREPARE_FOR_DELETION, on_prepare, NULL, &err));
    OK(og_context_set_hook(ctx, "Book", OG_HOOK_WILL_TURN_INTO_FAULT, on_will_fault, NULL, &err));
    og_object *b = NN(og_context_insert(ctx, "Book", &err));
    INTEQ(awake_insert, 1);
    expect_string(b, "title", "Untitled");
    OK(og_context_save(ctx, &err));
    CHECK(will_save >= 1);
    INTEQ(did_save, 1);
    int64_t pages;
    OK(og_object_get_int64(b, "pages", &pages, &err));
    INTEQ(pages, 1);
    bool updated;
    OK(og_object_is_updated(b, &updated, &err));
    CHECK(!updated);

    og_context *other = NN(og_context_new(coordinator, &err));
    og_fetch_request *req = NN(og_fetch_request_new("Book", &err));
    og_results *r = NN(og_context_fetch(other, req, &err));   /* no hooks there */
    og_results_release(r);
    INTEQ(awake_fetch, 0);
    OK(og_context_refresh_object(ctx, b, false, &err));
    INTEQ(will_fault, 1);
    r = NN(og_context_fetch(ctx, req, &err));
    og_results_release(r);
    /* The fetch gave the fault its row; awakeFromFetch runs when it fires. */
    INTEQ(awake_fetch, 0);
    OK(og_object_get_int64(b, "pages", &pages, &err));
    INTEQ(awake_fetch, 1);
    OK(og_context_delete(ctx, b, &err));
    INTEQ(prepare_delete, 1);
    /* Deleting again runs prepareForDeletion again; once saved, the object is not "deleted". */
    OK(og_context_delete(ctx, b, &err));
    INTEQ(prepare_delete, 2);
    OK(og_context_save(ctx, &err));
    bool deleted = true;
    OK(og_object_is_deleted(b, &deleted, &err));
    CHECK(!deleted);
    /* Removing a hook: it is not called again. */
    OK(og_context_set_hook(ctx, "Book", OG_HOOK_AWAKE_FROM_INSERT, NULL, NULL, &err));
    NN(og_context_insert(ctx, "Book", &err));
    INTEQ(awake_insert, 1);
    FAILS(og_context_set_hook(ctx, "Book", 99, on_fetch, NULL, &err), OG_ERROR_INVALID_ARGUMENT, "og_hook_kind");
    og_fetch_request_release(req);
    og_context_release(other);
    teardown();
}

/* ---- key paths, changed and committed values, primitives ---------------- */

static void key_paths(void) {
    setup();
    og_object *a = new_author("Mary");
    og_object *b = new_book("Frankenstein", a);
    new_book("Mathilda", a);
    OK(og_context_save(ctx, &err));

    og_value *v = NULL;
    OK(og_object_get_value_for_key_path(b, "author.name", &v, &err));
    const char *text;
    OK(og_value_get_string(v, &text, &err));
    STREQ(text, "Mary");
    og_value_release(v);
    OK(og_object_get_value_for_key_path(a, "books.@count", &v, &err));
    int64_t n;
    OK(og_value_get_int64(v, &n, &err));
    INTEQ(n, 2);
    og_value_release(v);
    OK(og_object_get_value_for_key_path(b, "author", &v, &err));
    INTEQ(og_value_type_of(v), OG_VALUE_OBJECT);
    og_object *who = NULL;
    OK(og_value_get_object(v, &who, &err));
    CHECK(who == a);
    og_value_release(v);
    OK(og_object_get_value_for_key_path(a, "books", &v, &err));
    INTEQ(og_value_type_of(v), OG_VALUE_ARRAY);
    INTEQ(og_value_count(v), 2);
    og_value *item = NN(og_value_item_at(v, 0, &err));
    OK(og_value_get_object(item, &who, &err));
    CHECK(who != NULL);
    og_value_release(item);
    FAILS(og_value_get_object(v, &who, &err), OG_ERROR_TYPE_MISMATCH, "object");
    og_value_release(v);
    FAILS(og_object_get_value_for_key_path(b, "nope.name", &v, &err), OG_ERROR_UNKNOWN_KEY, "nope");

    /* changed and committed values */
    OK(og_object_changed_values(b, &v, &err));
    INTEQ(og_value_count(v), 0);
    og_value_release(v);
    OK(og_object_set_string(b, "title", "The Modern Prometheus", &err));
    OK(og_object_changed_values(b, &v, &err));
    INTEQ(og_value_count(v), 1);
    STREQ(og_value_key_at(v, 0, &err), "title");
    og_value_release(v);
    const char *keys[] = {"title", "author"};
    OK(og_object_committed_values(b, keys, 2, &v, &err));
    INTEQ(og_value_count(v), 2);
    og_value *title = NN(og_value_item_at(v, 1, &err));   /* keys sorted: author, title */
    OK(og_value_get_string(title, &text, &err));
    STREQ(text, "Frankenstein");
    og_value_release(title);
    og_value *author = NN(og_value_item_at(v, 0, &err));
    OK(og_value_get_object(author, &who, &err));
    CHECK(who == a);
    og_value_release(author);
    og_value_release(v);
    OK(og_object_committed_values(b, NULL, 0, &v, &err));
    CHECK(og_value_count(v) >= 3);
    og_value_release(v);
    const char *bad[] = {"nope"};
    FAILS(og_object_committed_values(b, bad, 1, &v, &err), OG_ERROR_UNKNOWN_KEY, "nope");

    /* Primitive accessors do not track changes. */
    OK(og_context_rollback(ctx, &err));
    og_value *p = NN(og_value_new_int64(77));
    OK(og_object_set_primitive_value(b, "pages", p, &err));
    og_value_release(p);
    bool updated;
    OK(og_object_is_updated(b, &updated, &err));
    CHECK(!updated);
    OK(og_object_get_primitive_value(b, "pages", &v, &err));
    OK(og_value_get_int64(v, &n, &err));
    INTEQ(n, 77);
    og_value_release(v);
    p = NN(og_value_new_int64(1));
    FAILS(og_object_set_primitive_value(b, "author", p, &err), OG_ERROR_TYPE_MISMATCH, "attribute");
    og_value_release(p);
    teardown();
}

/* ---- queue contexts and threads ----------------------------------------- */

static og_context *queue_ctx;

typedef struct {
    og_context *context;
    int depth;
    int ran;
    og_object *book;
} work_t;

static void insert_in_queue(void *user) {
    work_t *w = user;
    w->ran++;
    w->book = NN(og_context_insert(w->context, "Book", &err));
    OK(og_object_set_string(w->book, "title", "Queued", &err));
    if (w->depth++ == 0) OK(og_context_perform_and_wait(w->context, insert_in_queue, w, &err)); /* re-entrant */
}

static void save_in_queue(void *user) {
    work_t *w = user;
    OK(og_context_save(w->context, &err));
    w->ran++;
}

static void slow_insert(void *user) {
    work_t *w = user;
    usleep(20000);
    og_object *o = NN(og_context_insert(w->context, "Tag", &err));
    OK(og_object_set_string(o, "name", "late", &err));
    OK(og_context_save(w->context, &err));
    w->ran++;
}

static void *perform_from_thread(void *user) {
    work_t *w = user;
    OK(og_context_perform_and_wait(w->context, save_in_queue, w, &err));
    return NULL;
}

static void queue_contexts(void) {
    setup();
    queue_ctx = NN(og_context_new_with_type(coordinator, OG_CONCURRENCY_PRIVATE_QUEUE, &err));
    INTEQ(og_context_concurrency_type(queue_ctx), OG_CONCURRENCY_PRIVATE_QUEUE);
    INTEQ(og_context_concurrency_type(ctx), OG_CONCURRENCY_CONFINEMENT);
    INTEQ(og_context_concurrency_type(NULL), -1);
    /* Outside a block, a queue context refuses work. */
    FAILS_NULL(og_context_insert(queue_ctx, "Book", &err), OG_ERROR_WRONG_THREAD, "perform");
    work_t w = {queue_ctx, 0, 0, NULL};
    OK(og_context_perform_and_wait(queue_ctx, insert_in_queue, &w, &err));
    INTEQ(w.ran, 2);
    /* The object belongs to the queue too. */
    char *s;
    FAILS(og_object_get_string(w.book, "title", &s, &err), OG_ERROR_WRONG_THREAD, "thread|perform");
    /* Its ID too: making it reads the object's row, which the queue may be replacing. */
    FAILS_NULL(og_object_id_uri(w.book, &err), OG_ERROR_WRONG_THREAD, "thread|perform");
    FAILS_NULL(og_value_new_object_id(w.book, &err), OG_ERROR_WRONG_THREAD, "thread|perform");
    /* perform_and_wait from another thread saves. */
    pthread_t t;
    CHECK(pthread_create(&t, NULL, perform_from_thread, &w) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    INTEQ(w.ran, 3);
    og_fetch_request *req = NN(og_fetch_request_new("Book", &err));
    size_t n;
    OK(og_context_count(ctx, req, &n, &err));
    INTEQ(n, 2);
    og_fetch_request_release(req);

    /* perform is asynchronous; releasing the context waits for queued blocks. */
    work_t late = {queue_ctx, 0, 0, NULL};
    OK(og_context_perform(queue_ctx, slow_insert, &late, &err));
    og_context_release(queue_ctx);
    INTEQ(late.ran, 1);
    req = NN(og_fetch_request_new("Tag", &err));
    OK(og_context_count(ctx, req, &n, &err));
    INTEQ(n, 1);
    og_fetch_request_release(req);

    /* Main-queue contexts work the same way. */
    og_context *main_ctx = NN(og_context_new_with_type(coordinator, OG_CONCURRENCY_MAIN_QUEUE, &err));
    work_t m = {main_ctx, 1, 0, NULL};
    OK(og_context_perform_and_wait(main_ctx, insert_in_queue, &m, &err));
    INTEQ(m.ran, 1);
    og_context_release(main_ctx);

    /* A confinement context has no queue: perform is refused and the block does not run. */
    work_t c = {ctx, 1, 0, NULL};
    FAILS(og_context_perform(ctx, insert_in_queue, &c, &err), OG_ERROR_INVALID_ARGUMENT, "confinement");
    FAILS(og_context_perform_and_wait(ctx, insert_in_queue, &c, &err), OG_ERROR_INVALID_ARGUMENT, "confinement");
    INTEQ(c.ran, 0);
    FAILS(og_context_perform(ctx, NULL, NULL, &err), OG_ERROR_INVALID_ARGUMENT, "NULL");
    FAILS_NULL(og_context_new_with_type(coordinator, 7, &err), OG_ERROR_INVALID_ARGUMENT, "og_concurrency_type");
    teardown();
}

static void *misuse_thread(void *unused) {
    (void)unused;
    FAILS(og_context_rollback(ctx, &err), OG_ERROR_WRONG_THREAD, "thread");
    FAILS(og_context_process_pending_changes(ctx, &err), OG_ERROR_WRONG_THREAD, "thread");
    work_t w = {ctx, 1, 0, NULL};
    FAILS(og_context_perform(ctx, insert_in_queue, &w, &err), OG_ERROR_INVALID_ARGUMENT, "confinement");
    FAILS(og_context_perform_and_wait(ctx, insert_in_queue, &w, &err), OG_ERROR_INVALID_ARGUMENT, "confinement");
    FAILS(og_context_set_retains_registered_objects(ctx, true, &err), OG_ERROR_WRONG_THREAD, "thread");
    uint64_t token;
    FAILS(og_context_add_observer(ctx, 0, record, NULL, &token, &err), OG_ERROR_WRONG_THREAD, "thread");
    FAILS(og_context_set_hook(ctx, "Book", 0, on_fetch, NULL, &err), OG_ERROR_WRONG_THREAD, "thread");
    return NULL;
}

static void wrong_thread(void) {
    setup();
    pthread_t t;
    CHECK(pthread_create(&t, NULL, misuse_thread, NULL) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    OK(og_context_rollback(ctx, &err));
    teardown();
}

/* ---- scenario: a small library over several saves, reopened -------------- */

static og_object *fetch_one(og_context *c, const char *entity, const char *format, const char *arg) {
    og_fetch_request *req = NN(og_fetch_request_new(entity, &err));
    og_value *v = NN(og_value_new_string(arg, &err));
    og_predicate *p = NN(og_predicate_parse(format, &v, 1, &err));
    OK(og_fetch_request_set_predicate(req, p, &err));
    og_results *r = NN(og_context_fetch(c, req, &err));
    og_object *o = og_results_count(r) == 1 ? og_results_object_at(r, 0, &err) : NULL;
    og_results_release(r);
    og_predicate_release(p);
    og_value_release(v);
    og_fetch_request_release(req);
    return o;
}

static size_t count_of(og_context *c, const char *entity) {
    og_fetch_request *req = NN(og_fetch_request_new(entity, &err));
    size_t n;
    OK(og_context_count(c, req, &n, &err));
    og_fetch_request_release(req);
    return n;
}

static void scenario(void) {
    setup();
    /* Save 1: two authors, three books, tags. */
    og_object *le_guin = new_author("Ursula K. Le Guin"), *pratchett = new_author("Terry Pratchett");
    og_object *earthsea = new_book("A Wizard of Earthsea", le_guin);
    og_object *dispossessed = new_book("The Dispossessed", le_guin);
    og_object *mort = new_book("Mort", pratchett);
    const char *tag_names[] = {"fantasy", "classic", "sf"};
    og_object *tags[3];
    for (int i = 0; i < 3; i++) {
        tags[i] = NN(og_context_insert(ctx, "Tag", &err));
        OK(og_object_set_string(tags[i], "name", tag_names[i], &err));
    }
    OK(og_object_add_related(earthsea, "tags", tags[0], &err));
    OK(og_object_add_related(earthsea, "tags", tags[1], &err));
    OK(og_object_add_related(dispossessed, "tags", tags[2], &err));
    OK(og_object_set_int64(mort, "pages", 272, &err));
    OK(og_context_save(ctx, &err));

    /* Save 2 fails validation (a loan without a borrower, a book with 0 pages), then is fixed. */
    og_object *loan = NN(og_context_insert(ctx, "Loan", &err));
    OK(og_object_set_object(loan, "book", mort, &err));
    OK(og_object_set_int64(dispossessed, "pages", 0, &err));
    CHECK(og_context_save(ctx, &err) == OG_ERROR);
    INTEQ(og_error_code(err), OG_ERROR_VALIDATION_MULTIPLE);
    og_t_clear();
    OK(og_object_set_string(loan, "borrower", "Sam", &err));
    OK(og_object_set_int64(dispossessed, "pages", 387, &err));
    OK(og_context_save(ctx, &err));

    /* Save 3: deleting Pratchett is denied (Mort is on loan); rollback; return the loan; delete. */
    OK(og_context_delete(ctx, pratchett, &err));
    FAILS(og_context_save(ctx, &err), OG_ERROR_VALIDATION_DENIED_DELETE, "deny|loans");
    OK(og_context_rollback(ctx, &err));
    OK(og_context_delete(ctx, loan, &err));
    OK(og_context_delete(ctx, pratchett, &err));
    OK(og_context_save(ctx, &err));

    /* Save 4: a tag is deleted (nullify), a book moves to a new author. */
    og_object *new_author_obj = new_author("Anon");
    OK(og_context_delete(ctx, tags[1], &err));
    OK(og_object_set_object(dispossessed, "author", new_author_obj, &err));
    OK(og_context_save(ctx, &err));
    og_context_release(ctx);
    og_coordinator_release(coordinator);

    /* Reopen the store and check the graph. */
    coordinator = graph_open(path);
    ctx = NN(og_context_new(coordinator, &err));
    INTEQ(count_of(ctx, "Author"), 2);
    INTEQ(count_of(ctx, "Book"), 2);
    INTEQ(count_of(ctx, "Loan"), 0);
    INTEQ(count_of(ctx, "Tag"), 2);
    og_object *e = NN(fetch_one(ctx, "Book", "title == %@", "A Wizard of Earthsea"));
    og_value *v;
    OK(og_object_get_value_for_key_path(e, "author.name", &v, &err));
    const char *text;
    OK(og_value_get_string(v, &text, &err));
    STREQ(text, "Ursula K. Le Guin");
    og_value_release(v);
    INTEQ(related_count(e, "tags"), 1);
    og_object *d = NN(fetch_one(ctx, "Book", "title == %@", "The Dispossessed"));
    OK(og_object_get_value_for_key_path(d, "author.name", &v, &err));
    OK(og_value_get_string(v, &text, &err));
    STREQ(text, "Anon");
    og_value_release(v);
    int64_t pages;
    OK(og_object_get_int64(d, "pages", &pages, &err));
    INTEQ(pages, 387);
    og_object *lg = NN(fetch_one(ctx, "Author", "name BEGINSWITH %@", "Ursula"));
    INTEQ(related_count(lg, "books"), 1);
    CHECK(fetch_one(ctx, "Book", "title == %@", "Mort") == NULL);
    og_object *classic = fetch_one(ctx, "Tag", "name == %@", "classic");
    CHECK(classic == NULL);
    og_object *sf = NN(fetch_one(ctx, "Tag", "name == %@", "sf"));
    og_object *sf_book = NULL;
    OK(og_object_get_object(sf, "book", &sf_book, &err));
    CHECK(sf_book == d);
    teardown();
}

static const og_t_case cases[] = {
    {"uniquing", uniquing},
    {"inverses", inverses},
    {"delete_rules", delete_rules},
    {"pending_sets", pending_sets},
    {"validation", validation},
    {"to_many_counts", to_many_counts},
    {"rollback_reset_refresh", rollback_reset_refresh},
    {"notifications", notifications},
    {"pending_insert_changes", pending_insert_changes},
    {"hooks", hooks}, {"refusing_will_save", refusing_will_save},
    {"hook_gives_back_the_object_being_read", hook_gives_back_the_object_being_read},
    {"key_paths", key_paths},
    {"queue_contexts", queue_contexts},
    {"wrong_thread", wrong_thread},
    {"scenario", scenario},
};

int main(int argc, char **argv) { return OG_T_RUN(cases, argc, argv); }
