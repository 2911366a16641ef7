/* Misuse of the API gives an error with a code and a telling message, never a
 * crash. One case per misuse; ctest runs each on its own. */
#include "library_model.h"
#include "og_test_cases.h"

/* A fresh store, context and inserted Book for the cases that need them. */
static char *dir;
static og_coordinator *coordinator;
static og_context *context;

static og_object *setup_book(void) {
    dir = og_t_tempdir();
    char *path = og_t_path(dir, "misuse.sqlite");
    coordinator = library_open(path, false, NULL);
    free(path);
    context = NN(og_context_new(coordinator, &err));
    return NN(og_context_insert(context, "Book", &err));
}

static void teardown(void) {
    og_context_release(context);
    og_coordinator_release(coordinator);
    og_t_remove_tree(dir);
    context = NULL;
    coordinator = NULL;
}

static void null_handle(void) {
    FAILS_NULL(og_context_insert(NULL, "Book", &err), OG_ERROR_INVALID_HANDLE, "handle|NULL");
    FAILS_NULL(og_model_add_entity(NULL, "Book", &err), OG_ERROR_INVALID_HANDLE, "handle|NULL");
    int64_t i;
    FAILS(og_object_get_int64(NULL, "small", &i, &err), OG_ERROR_INVALID_HANDLE, "handle|NULL");
    /* Queries without an error argument answer "nothing". */
    INTEQ(og_model_entity_count(NULL), 0);
    CHECK(og_entity_name(NULL) == NULL);
    CHECK(og_error_message(NULL) == NULL);
    INTEQ(og_error_code(NULL), 0);
    og_error_release(NULL); /* ignored */
}

static void released_fetch_request(void) {
    og_fetch_request *request = NN(og_fetch_request_new("Book", &err));
    og_fetch_request_release(request);
    FAILS(og_fetch_request_add_sort(request, "title", true, &err), OG_ERROR_INVALID_HANDLE,
          "handle|released");
    og_fetch_request_release(request); /* releasing twice is harmless */
}

static void released_model(void) {
    og_model *model = library_model_new(false);
    og_model_release(model);
    FAILS_NULL(og_model_add_entity(model, "Shelf", &err), OG_ERROR_INVALID_HANDLE, "handle|released");
    FAILS_NULL(og_coordinator_new(model, &err), OG_ERROR_INVALID_HANDLE, "handle|released");
}

static void object_after_context_release(void) {
    og_object *book = setup_book();
    og_context_release(context);
    context = NULL;
    /* The context lent the object's handle, so the handle died with it. */
    FAILS(og_object_set_int64(book, "small", 1, &err), OG_ERROR_INVALID_HANDLE, "released");
    char *title;
    FAILS(og_object_get_string(book, "title", &title, &err), OG_ERROR_INVALID_HANDLE, "released");
    teardown();
}

static void wrong_kind_handle(void) {
    og_model *model = library_model_new(false);
    FAILS_NULL(og_context_insert((og_context *)model, "Book", &err), OG_ERROR_INVALID_HANDLE,
               "handle|kind|context");
    og_fetch_request *request = NN(og_fetch_request_new("Book", &err));
    FAILS_NULL(og_model_entity((og_model *)request, "Book", &err), OG_ERROR_INVALID_HANDLE,
               "handle|kind|model");
    og_fetch_request_release(request);
    og_model_release(model);
}

static void unknown_entity(void) {
    setup_book();
    FAILS_NULL(og_context_insert(context, "Shelf", &err), OG_ERROR_UNKNOWN_ENTITY, "Shelf");
    /* A request names its entity freely; executing it checks. */
    og_fetch_request *request = NN(og_fetch_request_new("Shelf", &err));
    FAILS_NULL(og_context_fetch(context, request, &err), OG_ERROR_UNKNOWN_ENTITY, "Shelf");
    og_fetch_request_release(request);
    teardown();
}

static void abstract_entity(void) {
    og_model *model = NN(og_model_new());
    og_entity *item = NN(og_model_add_entity(model, "Item", &err));
    OK(og_entity_set_abstract(item, true, &err));
    char *tmp = og_t_tempdir();
    char *path = og_t_path(tmp, "abstract.sqlite");
    og_coordinator *c = NN(og_coordinator_new(model, &err));
    NN(og_coordinator_add_store(c, "SQLite", path, &err));
    og_context *ctx = NN(og_context_new(c, &err));
    FAILS_NULL(og_context_insert(ctx, "Item", &err), OG_ERROR_UNKNOWN_ENTITY, "Item");
    og_context_release(ctx);
    og_coordinator_release(c);
    og_model_release(model);
    free(path);
    og_t_remove_tree(tmp);
}

static void unknown_key(void) {
    og_object *book = setup_book();
    FAILS(og_object_set_int64(book, "isbn", 1, &err), OG_ERROR_UNKNOWN_KEY, "isbn");
    double d;
    FAILS(og_object_get_double(book, "isbn", &d, &err), OG_ERROR_UNKNOWN_KEY, "isbn");
    og_fetch_request *request = NN(og_fetch_request_new("Book", &err));
    OK(og_fetch_request_add_sort(request, "isbn", true, &err)); /* checked when executed */
    FAILS_NULL(og_context_fetch(context, request, &err), OG_ERROR_UNKNOWN_KEY, "isbn");
    og_fetch_request_release(request);
    teardown();
}

static void wrong_type(void) {
    og_object *book = setup_book();
    FAILS(og_object_set_string(book, "medium", "twelve", &err), OG_ERROR_TYPE_MISMATCH, "medium");
    FAILS(og_object_set_bool(book, "title", true, &err), OG_ERROR_TYPE_MISMATCH, "title");
    char *s;
    FAILS(og_object_get_string(book, "small", &s, &err), OG_ERROR_TYPE_MISMATCH, "small");
    og_value *v = NN(og_value_new_date(0));
    FAILS(og_object_set_value(book, "code", v, &err), OG_ERROR_TYPE_MISMATCH, "code");
    og_value_release(v);
    teardown();
}

static void integer_too_large(void) {
    og_object *book = setup_book();
    FAILS(og_object_set_int64(book, "small", 70000, &err), OG_ERROR_VALIDATION_NUMBER_TOO_LARGE,
          "small|70000");
    FAILS(og_object_set_int64(book, "medium", 3000000000LL, &err),
          OG_ERROR_VALIDATION_NUMBER_TOO_LARGE, "medium|3000000000");
    int64_t i;
    OK(og_object_get_int64(book, "small", &i, &err));
    INTEQ(i, 7); /* unchanged */
    teardown();
}

static void integer_too_small(void) {
    og_object *book = setup_book();
    FAILS(og_object_set_int64(book, "small", -70000, &err), OG_ERROR_VALIDATION_NUMBER_TOO_SMALL,
          "small|-70000");
    og_value *v = NN(og_value_new_int64(-70000));
    FAILS(og_object_set_value(book, "small", v, &err), OG_ERROR_VALIDATION_NUMBER_TOO_SMALL,
          "small|-70000");
    og_value_release(v);
    teardown();
}

static void invalid_utf8(void) {
    og_object *book = setup_book();
    FAILS(og_object_set_string(book, "title", "\xff\xfe", &err), OG_ERROR_INVALID_UTF8, "UTF-8|UTF8");
    FAILS_NULL(og_context_insert(context, "Bo\xff", &err), OG_ERROR_INVALID_UTF8, "UTF-8|UTF8");
    teardown();
}

static void null_argument(void) {
    og_object *book = setup_book();
    FAILS(og_object_get_int64(book, "small", NULL, &err), OG_ERROR_INVALID_ARGUMENT, "NULL|out|argument");
    FAILS(og_object_set_int64(book, NULL, 1, &err), OG_ERROR_INVALID_ARGUMENT, "NULL|key|argument");
    teardown();
}

static void index_out_of_range(void) {
    og_model *model = library_model_new(false);
    FAILS_NULL(og_model_entity_at(model, 5, &err), OG_ERROR_INVALID_ARGUMENT, "index|range|5");
    og_entity *book = NN(og_model_entity(model, "Book", &err));
    FAILS_NULL(og_entity_property_at(book, 500, &err), OG_ERROR_INVALID_ARGUMENT, "index|range|500");
    og_model_release(model);
}

static const og_t_case cases[] = {
    {"null_handle", null_handle},
    {"released_fetch_request", released_fetch_request},
    {"released_model", released_model},
    {"object_after_context_release", object_after_context_release},
    {"wrong_kind_handle", wrong_kind_handle},
    {"unknown_entity", unknown_entity},
    {"abstract_entity", abstract_entity},
    {"unknown_key", unknown_key},
    {"wrong_type", wrong_type},
    {"integer_too_large", integer_too_large},
    {"integer_too_small", integer_too_small},
    {"invalid_utf8", invalid_utf8},
    {"null_argument", null_argument},
    {"index_out_of_range", index_out_of_range},
};

int main(int argc, char **argv) {
    return OG_T_RUN(cases, argc, argv);
}
