/* Predicates through the C ABI: a sample of the shared case table
 * (Tests/Predicates/cases.json), construction, substitution, fetches with
 * predicates and sort comparisons, and the errors of each call. */
#include "library_model.h"
#include "og_test_cases.h"
#include "predicate_sample.h"

#define SECONDS_1970_TO_2001 978307200.0
#ifndef OG_FIXTURES
#define OG_FIXTURES "Tests/Fixtures/Models"
#endif

/* Decodes one value of the sample's text form (see sample_to_c.py). */
static og_value *decode(const char **p) {
    char kind = *(*p)++;
    char *end;
    switch (kind) {
    case 'n': return og_value_new_null();
    case 'b': return og_value_new_bool(*(*p)++ == '1');
    case 'i': {
        long long v = strtoll(*p, &end, 10);
        *p = end + 1;
        return og_value_new_int64(v);
    }
    case 'd': case 't': {
        double v = strtod(*p, &end);
        *p = end + 1;
        return kind == 'd' ? og_value_new_double(v) : og_value_new_date(v + SECONDS_1970_TO_2001);
    }
    case 's': {
        size_t n = strtoul(*p, &end, 10);
        char *text = malloc(n + 1);
        memcpy(text, end + 1, n);
        text[n] = '\0';
        *p = end + 1 + n;
        og_value *v = NN(og_value_new_string(text, &err));
        free(text);
        return v;
    }
    case 'a': case 'D': {
        size_t n = strtoul(*p, &end, 10);
        *p = end + 1;
        og_value **items = calloc(n + 1, sizeof *items);
        char **keys = calloc(n + 1, sizeof *keys);
        for (size_t i = 0; i < n; i++) {
            if (kind == 'D') {
                og_value *key = decode(p);
                const char *k;
                OK(og_value_get_string(key, &k, &err));
                keys[i] = strdup(k);
                og_value_release(key);
            }
            items[i] = decode(p);
        }
        og_value *v = kind == 'a' ? NN(og_value_new_array(items, n, &err))
                                  : NN(og_value_new_dictionary((const char *const *)keys, items, n, &err));
        for (size_t i = 0; i < n; i++) {
            og_value_release(items[i]);
            free(keys[i]);
        }
        free(items);
        free(keys);
        return v;
    }
    }
    fprintf(stderr, "bad sample encoding '%c'\n", kind);
    exit(1);
}

static og_value *decode_all(const char *text) {
    const char *p = text;
    return decode(&p);
}

static void table_sample(void) {
    size_t n = sizeof predicate_cases / sizeof predicate_cases[0];
    CHECK(n >= 50);
    for (size_t i = 0; i < n; i++) {
        const struct predicate_case *c = &predicate_cases[i];
        og_value *args = decode_all(c->args);
        size_t count = og_value_count(args);
        og_value **list = calloc(count + 1, sizeof *list);
        for (size_t k = 0; k < count; k++) list[k] = NN(og_value_item_at(args, k, &err));
        og_predicate *p = og_predicate_parse(c->format, list, count, &err);
        for (size_t k = 0; k < count; k++) og_value_release(list[k]);
        free(list);
        og_value_release(args);
        if (p == NULL) {
            if (c->result != -1 || og_error_code(err) != c->error) {
                fprintf(stderr, "case %s\n", c->id);
                og_t_fail(__FILE__, __LINE__, "parse failed");
            }
            og_t_clear();
            continue;
        }
        if (c->canonical) {
            if (strcmp(NN(og_predicate_format(p, &err)), c->canonical) != 0) fprintf(stderr, "case %s\n", c->id);
            STREQ(og_predicate_format(p, &err), c->canonical);
        }
        og_predicate *again = NN(og_predicate_parse(og_predicate_format(p, &err), NULL, 0, &err));
        CHECK(og_predicate_equal(p, again));
        og_predicate_release(again);

        og_value *object = decode_all(c->object);
        og_value *variables = decode_all(c->variables);
        size_t vcount = og_value_count(variables);
        const char **names = calloc(vcount + 1, sizeof *names);
        og_value **values = calloc(vcount + 1, sizeof *values);
        for (size_t k = 0; k < vcount; k++) {
            names[k] = NN(og_value_key_at(variables, k, &err));
            values[k] = NN(og_value_item_at(variables, k, &err));
        }
        bool result = false;
        og_status s = og_predicate_evaluate(p, object, names, values, vcount, &result, &err);
        if (c->result == -1) {
            if (s != OG_ERROR || og_error_code(err) != c->error) fprintf(stderr, "case %s\n", c->id);
            CHECK(s == OG_ERROR);
            INTEQ(og_error_code(err), c->error);
            og_t_clear();
        } else {
            if (s != OG_OK || (int)result != c->result) fprintf(stderr, "case %s: %s\n", c->id, c->format);
            OK(s);
            INTEQ(result, c->result);
        }
        for (size_t k = 0; k < vcount; k++) og_value_release(values[k]);
        free(names);
        free(values);
        og_value_release(object);
        og_value_release(variables);
        og_predicate_release(p);
    }
    printf("  %zu table cases\n", n);
}

static void composite_values(void) {
    og_value *items[2] = {og_value_new_int64(1), NN(og_value_new_string("two", &err))};
    og_value *array = NN(og_value_new_array(items, 2, &err));
    INTEQ(og_value_type_of(array), OG_VALUE_ARRAY);
    INTEQ(og_value_count(array), 2);
    og_value *second = NN(og_value_item_at(array, 1, &err));
    const char *text;
    OK(og_value_get_string(second, &text, &err));
    STREQ(text, "two");
    og_value_release(second);
    FAILS_NULL(og_value_item_at(array, 2, &err), OG_ERROR_INVALID_ARGUMENT, "out of range");
    int64_t i;
    FAILS(og_value_get_int64(array, &i, &err), OG_ERROR_TYPE_MISMATCH, "collection");

    const char *keys[2] = {"b", "a"};
    og_value *dict = NN(og_value_new_dictionary(keys, items, 2, &err));
    INTEQ(og_value_type_of(dict), OG_VALUE_DICTIONARY);
    STREQ(og_value_key_at(dict, 0, &err), "a");
    FAILS_NULL(og_value_key_at(array, 0, &err), OG_ERROR_INVALID_ARGUMENT, "not a dictionary");
    og_value_release(items[0]);
    og_value_release(items[1]);
    og_value_release(array);
    og_value_release(dict);
}

static void construction_and_substitution(void) {
    og_value *thirty = og_value_new_int64(30);
    og_predicate *age = NN(og_predicate_new_comparison("age", OG_COMPARE_GREATER_THAN, thirty, 0, OG_QUANTIFIER_DIRECT, &err));
    og_value *z = NN(og_value_new_string("z", &err));
    og_predicate *name = NN(og_predicate_new_comparison("name", OG_COMPARE_BEGINS_WITH, z,
                                                        OG_COMPARE_CASE_INSENSITIVE | OG_COMPARE_DIACRITIC_INSENSITIVE,
                                                        OG_QUANTIFIER_DIRECT, &err));
    og_predicate *parts[2] = {age, name};
    og_predicate *both = NN(og_predicate_new_compound(OG_COMPOUND_AND, parts, 2, &err));
    STREQ(og_predicate_format(both, &err), "age > 30 AND name BEGINSWITH[cd] \"z\"");
    og_predicate *not_both = NN(og_predicate_new_compound(OG_COMPOUND_NOT, &both, 1, &err));
    STREQ(og_predicate_format(not_both, &err), "NOT (age > 30 AND name BEGINSWITH[cd] \"z\")");
    FAILS_NULL(og_predicate_new_compound(OG_COMPOUND_NOT, parts, 2, &err), OG_ERROR_INVALID_ARGUMENT, "exactly one");
    FAILS_NULL(og_predicate_new_comparison("age", 55, thirty, 0, 0, &err), OG_ERROR_INVALID_ARGUMENT, "og_comparison_operator");

    const char *keys[2] = {"age", "name"};
    og_value *values[2] = {og_value_new_int64(31), NN(og_value_new_string("Zoë", &err))};
    og_value *person = NN(og_value_new_dictionary(keys, values, 2, &err));
    bool result = false;
    OK(og_predicate_evaluate(both, person, NULL, NULL, 0, &result, &err));
    CHECK(result);
    OK(og_predicate_evaluate(not_both, person, NULL, NULL, 0, &result, &err));
    CHECK(!result);

    og_predicate *template = NN(og_predicate_parse("age > $minimum", NULL, 0, &err));
    FAILS(og_predicate_evaluate(template, person, NULL, NULL, 0, &result, &err), OG_ERROR_PREDICATE_VARIABLE, "minimum");
    const char *names[1] = {"minimum"};
    og_value *limit = og_value_new_int64(40);
    OK(og_predicate_evaluate(template, person, names, &limit, 1, &result, &err));
    CHECK(!result);
    og_predicate *concrete = NN(og_predicate_substitute(template, names, &limit, 1, &err));
    STREQ(og_predicate_format(concrete, &err), "age > 40");
    FAILS_NULL(og_predicate_substitute(template, NULL, NULL, 0, &err), OG_ERROR_PREDICATE_VARIABLE, "minimum");

    for (int k = 0; k < 2; k++) og_value_release(values[k]);
    og_value_release(limit);
    og_value_release(person);
    og_value_release(thirty);
    og_value_release(z);
    og_predicate_release(age);
    og_predicate_release(name);
    og_predicate_release(both);
    og_predicate_release(not_both);
    og_predicate_release(template);
    og_predicate_release(concrete);
}

static void parse_errors(void) {
    FAILS_NULL(og_predicate_parse("age > ", NULL, 0, &err), OG_ERROR_PREDICATE_SYNTAX, "position 6");
    FAILS_NULL(og_predicate_parse("name == 'open", NULL, 0, &err), OG_ERROR_PREDICATE_SYNTAX, "unterminated");
    FAILS_NULL(og_predicate_parse("age > %d", NULL, 0, &err), OG_ERROR_PREDICATE_ARGUMENT, "no argument");
    og_value *text = NN(og_value_new_string("x", &err));
    FAILS_NULL(og_predicate_parse("age > %d", &text, 1, &err), OG_ERROR_PREDICATE_ARGUMENT, "integer");
    og_value_release(text);
    /* Any selector parses (models carry them); calling one off the allow-list fails. */
    og_predicate *unknown = NN(og_predicate_parse("FUNCTION(name, 'removeAllObjects') == 1", NULL, 0, &err));
    const char *unknown_keys[1] = {"name"};
    og_value *unknown_values[1] = {NN(og_value_new_string("Ann", &err))};
    og_value *unknown_object = NN(og_value_new_dictionary(unknown_keys, unknown_values, 1, &err));
    bool unknown_result = false;
    FAILS(og_predicate_evaluate(unknown, unknown_object, NULL, NULL, 0, &unknown_result, &err), OG_ERROR_PREDICATE_EVALUATION, "not allowed");
    og_value_release(unknown_object);
    og_predicate_release(unknown);
    /* BETWEEN with three bounds parses too, and fails when evaluated. */
    og_predicate *three = NN(og_predicate_parse("name BETWEEN {1, 2, 3}", NULL, 0, &err));
    og_value *three_object = NN(og_value_new_dictionary(unknown_keys, unknown_values, 1, &err));
    FAILS(og_predicate_evaluate(three, three_object, NULL, NULL, 0, &unknown_result, &err), OG_ERROR_PREDICATE_EVALUATION, "got 3 bounds");
    og_value_release(three_object);
    og_value_release(unknown_values[0]);
    og_predicate_release(three);
    FAILS_NULL(og_predicate_parse(NULL, NULL, 0, &err), OG_ERROR_INVALID_ARGUMENT, "NULL");
    FAILS_NULL(og_predicate_parse("age > 1", NULL, 3, &err), OG_ERROR_INVALID_ARGUMENT, "NULL");
    FAILS_NULL(og_predicate_format(NULL, &err), OG_ERROR_INVALID_HANDLE, "NULL");
    og_predicate *p = NN(og_predicate_parse("age > 1", NULL, 0, &err));
    og_predicate_release(p);
    FAILS_NULL(og_predicate_format(p, &err), OG_ERROR_INVALID_HANDLE, "released");
    CHECK(!og_predicate_equal(p, NULL));
    og_predicate_release(NULL);

    og_value *one = og_value_new_int64(1);
    og_predicate *typed = NN(og_predicate_parse("name > 3", NULL, 0, &err));
    const char *keys[1] = {"name"};
    og_value *values[1] = {NN(og_value_new_string("Ann", &err))};
    og_value *person = NN(og_value_new_dictionary(keys, values, 1, &err));
    bool result;
    FAILS(og_predicate_evaluate(typed, person, NULL, NULL, 0, &result, &err), OG_ERROR_PREDICATE_EVALUATION, "string");
    FAILS(og_predicate_evaluate(typed, person, NULL, NULL, 0, NULL, &err), OG_ERROR_INVALID_ARGUMENT, "out");
    og_value_release(values[0]);
    og_value_release(person);
    og_value_release(one);
    og_predicate_release(typed);
}

static void fetch_with_predicate(void) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "predicates.sqlite");
    og_store *store;
    og_coordinator *coordinator = library_open(path, false, &store);
    og_context *context = NN(og_context_new(coordinator, &err));
    og_object *pratchett = NN(og_context_insert(context, "Author", &err));
    OK(og_object_set_string(pratchett, "name", "Terry Pratchett", &err));
    og_object *gaiman = NN(og_context_insert(context, "Author", &err));
    OK(og_object_set_string(gaiman, "name", "Neil Gaiman", &err));
    const char *titles[] = {"mort", "Guards! Guards!", "Sourcery", "Émile", "file10", "file2"};
    for (int i = 0; i < 6; i++) {
        og_object *book = NN(og_context_insert(context, "Book", &err));
        OK(og_object_set_string(book, "title", titles[i], &err));
        OK(og_object_set_int64(book, "medium", 1980 + i, &err));
        OK(og_object_set_object(book, "author", i < 3 ? pratchett : gaiman, &err));
    }
    OK(og_context_save(context, &err));

    og_value *args[2] = {NN(og_value_new_string("terry", &err)), og_value_new_int64(1980)};
    og_predicate *p = NN(og_predicate_parse("author.name BEGINSWITH[c] %@ AND medium > %d", args, 2, &err));
    og_fetch_request *request = NN(og_fetch_request_new("Book", &err));
    OK(og_fetch_request_set_predicate(request, p, &err));
    og_predicate_release(p); /* the request keeps its own reference */
    OK(og_fetch_request_add_sort_comparison(request, "title", true, OG_SORT_CASE_INSENSITIVE, &err));
    og_results *results = NN(og_context_fetch(context, request, &err));
    INTEQ(og_results_count(results), 2);
    og_object *first = NN(og_results_object_at(results, 0, &err));
    char *title;
    OK(og_object_get_string(first, "title", &title, &err));
    STREQ(title, "Guards! Guards!");
    og_free(title);
    size_t count = 0;
    OK(og_context_count(context, request, &count, &err));
    INTEQ(count, 2);

    /* Evaluating against a managed object reads through its relationships. */
    og_value *object = NN(og_value_new_object(first, &err));
    INTEQ(og_value_type_of(object), OG_VALUE_OBJECT);
    og_predicate *by_author = NN(og_predicate_parse("author.name == 'Terry Pratchett'", NULL, 0, &err));
    bool result = false;
    OK(og_predicate_evaluate(by_author, object, NULL, NULL, 0, &result, &err));
    CHECK(result);
    og_value_release(object);
    og_predicate_release(by_author);
    og_results_release(results);

    /* An object argument compares relationships by identity. */
    og_value *author = NN(og_value_new_object(gaiman, &err));
    og_predicate *books_of = NN(og_predicate_parse("author == %@", &author, 1, &err));
    OK(og_fetch_request_set_predicate(request, books_of, &err));
    og_fetch_request *localized = NN(og_fetch_request_new("Book", &err));
    OK(og_fetch_request_set_predicate(localized, books_of, &err));
    OK(og_fetch_request_add_sort_comparison(localized, "title", true, OG_SORT_LOCALIZED_STANDARD, &err));
    results = NN(og_context_fetch(context, localized, &err));
    INTEQ(og_results_count(results), 3);
    OK(og_object_get_string(NN(og_results_object_at(results, 0, &err)), "title", &title, &err));
    STREQ(title, "Émile");
    og_free(title);
    OK(og_object_get_string(NN(og_results_object_at(results, 1, &err)), "title", &title, &err));
    STREQ(title, "file2");
    og_free(title);
    og_results_release(results);
    FAILS(og_fetch_request_add_sort_comparison(localized, "title", true, 9, &err), OG_ERROR_INVALID_ARGUMENT, "og_sort_comparison");

    /* A key path the entity does not have is an error when the fetch runs. */
    og_predicate *unknown = NN(og_predicate_parse("author.nmae == 'x'", NULL, 0, &err));
    OK(og_fetch_request_set_predicate(request, unknown, &err));
    FAILS_NULL(og_context_fetch(context, request, &err), OG_ERROR_UNKNOWN_KEY, "nmae");
    OK(og_fetch_request_set_predicate(request, NULL, &err));
    results = NN(og_context_fetch(context, request, &err));
    INTEQ(og_results_count(results), 6);
    og_results_release(results);

    og_value_release(author);
    og_value_release(args[0]);
    og_value_release(args[1]);
    og_predicate_release(books_of);
    og_predicate_release(unknown);
    og_fetch_request_release(request);
    og_fetch_request_release(localized);
    og_context_release(context);
    og_coordinator_release(coordinator);
    free(path);
    og_t_remove_tree(dir);
}

/* A model's template becomes a real fetch request: parsed, substituted, run. */
static void template_fetch_request(void) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "shop.sqlite");
    og_model *model = NN(og_model_load(OG_FIXTURES "/Shop.xcdatamodeld", &err));
    og_coordinator *coordinator = NN(og_coordinator_new(model, &err));
    NN(og_coordinator_add_store(coordinator, "SQLite", path, &err));
    og_context *context = NN(og_context_new(coordinator, &err));
    const char *cities[] = {"Paris", "Lyon", "Paris"};
    for (int i = 0; i < 3; i++) {
        og_object *customer = NN(og_context_insert(context, "Customer", &err));
        OK(og_object_set_string(customer, "name", i == 2 ? "Zoé" : "Ann", &err));
        OK(og_object_set_string(customer, "city", cities[i], &err));
    }
    OK(og_context_save(context, &err));

    const char *names[1] = {"CITY"};
    og_value *paris = NN(og_value_new_string("Paris", &err));
    og_fetch_request *request = NN(og_model_fetch_request_from_template(model, "CustomersInCity", names, &paris, 1, &err));
    og_results *results = NN(og_context_fetch(context, request, &err));
    INTEQ(og_results_count(results), 2);
    og_results_release(results);
    og_fetch_request_release(request);

    FAILS_NULL(og_model_fetch_request_from_template(model, "CustomersInCity", NULL, NULL, 0, &err),
               OG_ERROR_PREDICATE_VARIABLE, "CITY");
    FAILS_NULL(og_model_fetch_request_from_template(model, "Nope", names, &paris, 1, &err),
               OG_ERROR_INVALID_ARGUMENT, "Nope");
    request = NN(og_model_fetch_request_from_template(model, "AllAudit", NULL, NULL, 0, &err));
    og_fetch_request_release(request);

    og_value_release(paris);
    og_context_release(context);
    og_coordinator_release(coordinator);
    og_model_release(model);
    free(path);
    og_t_remove_tree(dir);
}

static const og_t_case cases[] = {
    {"template_fetch_request", template_fetch_request},
    {"table_sample", table_sample},
    {"composite_values", composite_values},
    {"construction_and_substitution", construction_and_substitution},
    {"parse_errors", parse_errors},
    {"fetch_with_predicate", fetch_with_predicate},
};

int main(int argc, char **argv) { return OG_T_RUN(cases, argc, argv); }
