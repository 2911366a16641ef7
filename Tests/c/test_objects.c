/* Managed objects in an SQLite store: defaults on insert, every attribute type
 * through the typed, boxed and slot accessors, nil values, object state, delete,
 * and object IDs turning permanent on save. */
#include "library_model.h"

#include <string.h>

static const uint8_t uuid_bytes[16] = {0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0,
                                       0x0f, 0xed, 0xcb, 0xa9, 0x87, 0x65, 0x43, 0x21};

static void test_defaults_and_nulls(og_object *book) {
    char *s;
    int64_t i;
    double d;
    bool b;
    void *bytes;
    size_t length;

    STREQ(og_entity_name(NN(og_object_entity(book))), "Book");
    OK(og_object_get_string(book, "title", &s, &err));
    STREQ(s, "Untitled");
    og_free(s);
    OK(og_object_get_int64(book, "small", &i, &err));
    INTEQ(i, 7);
    OK(og_object_get_double(book, "ratio", &d, &err));
    DBLEQ(d, 0.5);
    OK(og_object_get_bool(book, "available", &b, &err));
    CHECK(b);
    og_value *v = NULL;
    const char *text;
    OK(og_object_get_value(book, "price", &v, &err));
    OK(og_value_get_decimal(v, &text, &err));
    STREQ(text, "9.99");
    og_value_release(v);

    /* No default: nil, reported as OG_NULL with a zeroed out-parameter. */
    i = 99;
    IS_NULL(og_object_get_int64(book, "medium", &i, &err));
    INTEQ(i, 0);
    CHECK(err == NULL);
    IS_NULL(og_object_get_int64(book, "large", &i, &err));
    IS_NULL(og_object_get_double(book, "weight", &d, &err));
    IS_NULL(og_object_get_date(book, "published", &d, &err));
    bytes = (void *)1;
    IS_NULL(og_object_get_data(book, "cover", &bytes, &length, &err));
    CHECK(bytes == NULL);
    OK(og_object_get_value(book, "code", &v, &err));
    INTEQ(og_value_type_of(v), OG_VALUE_NULL);
    og_value_release(v);

    /* set_null makes a value nil again. */
    OK(og_object_set_null(book, "title", &err));
    s = (char *)1;
    IS_NULL(og_object_get_string(book, "title", &s, &err));
    CHECK(s == NULL);
    OK(og_object_set_null(book, "available", &err));
    IS_NULL(og_object_get_bool(book, "available", &b, &err));
    CHECK(err == NULL);
}

static void test_typed_accessors(og_object *book) {
    char *s;
    int64_t i;
    double d;
    bool b;
    void *bytes;
    size_t length;

    OK(og_object_set_string(book, "title", "Zo\xc3\xab \xe2\x9c\x93", &err));
    OK(og_object_get_string(book, "title", &s, &err));
    STREQ(s, "Zo\xc3\xab \xe2\x9c\x93");
    og_free(s);

    OK(og_object_set_int64(book, "small", -32768, &err));
    OK(og_object_get_int64(book, "small", &i, &err));
    INTEQ(i, -32768);
    OK(og_object_set_int64(book, "medium", 2147483647, &err));
    OK(og_object_get_int64(book, "medium", &i, &err));
    INTEQ(i, 2147483647);
    OK(og_object_set_int64(book, "large", INT64_MIN, &err));
    OK(og_object_get_int64(book, "large", &i, &err));
    CHECK(i == INT64_MIN);
    /* Doubles read from integer attributes too. */
    OK(og_object_get_double(book, "medium", &d, &err));
    DBLEQ(d, 2147483647.0);

    OK(og_object_set_double(book, "ratio", 3.141592653589793, &err));
    OK(og_object_get_double(book, "ratio", &d, &err));
    DBLEQ(d, 3.141592653589793);
    OK(og_object_set_double(book, "weight", 1.25, &err));
    OK(og_object_get_double(book, "weight", &d, &err));
    DBLEQ(d, 1.25);

    OK(og_object_set_bool(book, "available", false, &err));
    OK(og_object_get_bool(book, "available", &b, &err));
    CHECK(!b);
    /* Integers read from boolean attributes. */
    OK(og_object_set_bool(book, "available", true, &err));
    OK(og_object_get_int64(book, "available", &i, &err));
    INTEQ(i, 1);

    OK(og_object_set_date(book, "published", 1700000000.25, &err));
    OK(og_object_get_date(book, "published", &d, &err));
    DBLEQ(d, 1700000000.25);

    OK(og_object_set_data(book, "cover", "\x00\x01\x02\xfe\xff", 5, &err));
    OK(og_object_get_data(book, "cover", &bytes, &length, &err));
    INTEQ(length, 5);
    CHECK(memcmp(bytes, "\x00\x01\x02\xfe\xff", 5) == 0);
    og_free(bytes);
    /* Empty data is a value, not nil; its bytes pointer is NULL. */
    OK(og_object_set_data(book, "cover", "", 0, &err));
    OK(og_object_get_data(book, "cover", &bytes, &length, &err));
    INTEQ(length, 0);
    CHECK(bytes == NULL);
}

/* Decimal, UUID and URI attributes have no typed setters: boxed values. */
static void test_boxed_accessors(og_object *book) {
    const char *text;
    uint8_t id[16];
    og_value *in, *out;

    in = NN(og_value_new_decimal("12345.678", &err));
    OK(og_object_set_value(book, "price", in, &err));
    og_value_release(in);
    OK(og_object_get_value(book, "price", &out, &err));
    INTEQ(og_value_type_of(out), OG_VALUE_DECIMAL);
    OK(og_value_get_decimal(out, &text, &err));
    STREQ(text, "12345.678");
    og_value_release(out);

    in = NN(og_value_new_uuid(uuid_bytes, &err));
    OK(og_object_set_value(book, "code", in, &err));
    og_value_release(in);
    OK(og_object_get_value(book, "code", &out, &err));
    OK(og_value_get_uuid(out, id, &err));
    CHECK(memcmp(id, uuid_bytes, 16) == 0);
    og_value_release(out);

    in = NN(og_value_new_uri("https://example.org/books/1", &err));
    OK(og_object_set_value(book, "link", in, &err));
    og_value_release(in);
    OK(og_object_get_value(book, "link", &out, &err));
    OK(og_value_get_uri(out, &text, &err));
    STREQ(text, "https://example.org/books/1");
    og_value_release(out);

    /* A null value clears. */
    in = NN(og_value_new_null());
    OK(og_object_set_value(book, "link", in, &err));
    og_value_release(in);
    OK(og_object_get_value(book, "link", &out, &err));
    INTEQ(og_value_type_of(out), OG_VALUE_NULL);
    og_value_release(out);
    in = NN(og_value_new_uri("https://example.org/books/1", &err));
    OK(og_object_set_value(book, "link", in, &err));
    og_value_release(in);
}

static void test_slot_accessors(og_object *book) {
    og_entity *entity = NN(og_object_entity(book));
    int64_t large = og_entity_slot(entity, "large", &err);
    int64_t ratio = og_entity_slot(entity, "ratio", &err);
    int64_t title = og_entity_slot(entity, "title", &err);
    CHECK(err == NULL && large >= 0 && ratio >= 0 && title >= 0);

    int64_t i;
    double d;
    OK(og_object_set_int64_at(book, (size_t)large, 1234567890123LL, &err));
    OK(og_object_get_int64_at(book, (size_t)large, &i, &err));
    INTEQ(i, 1234567890123LL);
    OK(og_object_get_int64(book, "large", &i, &err));
    INTEQ(i, 1234567890123LL);

    OK(og_object_set_double_at(book, (size_t)ratio, 0.75, &err));
    OK(og_object_get_double_at(book, (size_t)ratio, &d, &err));
    DBLEQ(d, 0.75);

    og_value *in = NN(og_value_new_string("The Colour of Magic", &err));
    OK(og_object_set_value_at(book, (size_t)title, in, &err));
    og_value_release(in);
    og_value *out;
    const char *text;
    OK(og_object_get_value_at(book, (size_t)title, &out, &err));
    OK(og_value_get_string(out, &text, &err));
    STREQ(text, "The Colour of Magic");
    og_value_release(out);

    FAILS(og_object_get_int64_at(book, 1000, &i, &err), OG_ERROR_INVALID_ARGUMENT, "slot|index|range|1000");
    /* A set refused for the object read last (the thread's cached lookup) reports its error
     * and changes nothing; the next set and read of it go on as before. */
    FAILS(og_object_set_int64_at(book, 1000, 1, &err), OG_ERROR_INVALID_ARGUMENT, "slot|index|range|1000");
    FAILS(og_object_set_double_at(book, 1000, 1.0, &err), OG_ERROR_INVALID_ARGUMENT, "slot|index|range|1000");
    OK(og_object_get_int64_at(book, (size_t)large, &i, &err));
    INTEQ(i, 1234567890123LL);
    OK(og_object_set_int64_at(book, (size_t)large, 42, &err));
    OK(og_object_get_int64_at(book, (size_t)large, &i, &err));
    INTEQ(i, 42);
    OK(og_object_set_int64_at(book, (size_t)large, 1234567890123LL, &err));

    /* A string copied into the caller's buffer: whole with its NUL when it fits, and
     * otherwise nothing copied and the length needed told. */
    char buffer[32];
    size_t length = 0;
    OK(og_object_copy_string_at(book, (size_t)title, buffer, sizeof buffer, &length, &err));
    INTEQ(length, 19);
    STREQ(buffer, "The Colour of Magic");
    memset(buffer, 'x', sizeof buffer);
    OK(og_object_copy_string_at(book, (size_t)title, buffer, 19, &length, &err));
    INTEQ(length, 19);
    CHECK(buffer[0] == 'x'); /* 19 bytes and a NUL do not fit in 19: left alone */
    OK(og_object_copy_string_at(book, (size_t)title, NULL, 0, &length, &err));
    INTEQ(length, 19);
    OK(og_object_set_string_n(book, "title", "a\0b", 3, &err)); /* embedded NUL kept */
    OK(og_object_copy_string_at(book, (size_t)title, buffer, sizeof buffer, &length, &err));
    INTEQ(length, 3);
    CHECK(memcmp(buffer, "a\0b", 4) == 0);
    int64_t link = og_entity_slot(entity, "link", &err);
    int64_t price = og_entity_slot(entity, "price", &err);
    OK(og_object_copy_string_at(book, (size_t)link, buffer, sizeof buffer, &length, &err));
    STREQ(buffer, "https://example.org/books/1");
    OK(og_object_set_null(book, "price", &err));
    IS_NULL(og_object_copy_string_at(book, (size_t)price, buffer, sizeof buffer, &length, &err));
    INTEQ(length, 0);
    CHECK(buffer[0] == 0);
    FAILS(og_object_copy_string_at(book, (size_t)large, buffer, sizeof buffer, &length, &err), OG_ERROR_TYPE_MISMATCH, "large");
    FAILS(og_object_copy_string_at(book, 1000, buffer, sizeof buffer, &length, &err), OG_ERROR_INVALID_ARGUMENT, "slot|index|range|1000");
    FAILS(og_object_copy_string_at(book, (size_t)title, NULL, 8, &length, &err), OG_ERROR_INVALID_ARGUMENT, "buffer");
    FAILS(og_object_copy_string_at(book, (size_t)title, buffer, sizeof buffer, NULL, &err), OG_ERROR_INVALID_ARGUMENT, "length");
    FAILS(og_object_copy_string_at(NULL, (size_t)title, buffer, sizeof buffer, &length, &err), OG_ERROR_INVALID_HANDLE, "NULL");
    OK(og_object_set_string(book, "title", "The Colour of Magic", &err));
}

static void check_state(og_object *object, bool inserted, bool updated, bool deleted) {
    bool b;
    OK(og_object_is_inserted(object, &b, &err));
    INTEQ(b, inserted);
    OK(og_object_is_updated(object, &b, &err));
    INTEQ(b, updated);
    OK(og_object_is_deleted(object, &b, &err));
    INTEQ(b, deleted);
}

static void test_save_and_ids(og_context *context, og_store *store, og_object *book) {
    bool b;
    char *uri = NN(og_object_id_uri(book, &err));
    CHECK(strncmp(uri, "x-coredata:///Book/t", 20) == 0);
    og_free(uri);
    OK(og_object_has_temporary_id(book, &b, &err));
    CHECK(b);
    check_state(book, true, false, false);
    OK(og_context_has_changes(context, &b, &err));
    CHECK(b);

    OK(og_context_save(context, &err));
    OK(og_context_has_changes(context, &b, &err));
    CHECK(!b);
    OK(og_object_has_temporary_id(book, &b, &err));
    CHECK(!b);
    check_state(book, false, false, false);

    /* The first Book of a new store gets primary key 1. */
    char expected[512];
    snprintf(expected, sizeof expected, "x-coredata://%s/Book/p1", og_store_uuid(store));
    uri = NN(og_object_id_uri(book, &err));
    STREQ(uri, expected);
    og_free(uri);

    OK(og_object_set_int64(book, "medium", 5, &err));
    check_state(book, false, true, false);
    OK(og_context_save(context, &err));
    check_state(book, false, false, false);
}

static void test_delete(og_context *context, og_object *book) {
    og_fetch_request *request = NN(og_fetch_request_new("Book", &err));
    size_t count;

    /* An object inserted since the last save is simply forgotten. */
    og_object *draft = NN(og_context_insert(context, "Book", &err));
    OK(og_context_count(context, request, &count, &err));
    INTEQ(count, 2);
    OK(og_context_delete(context, draft, &err));
    OK(og_context_count(context, request, &count, &err));
    INTEQ(count, 1);

    OK(og_context_delete(context, book, &err));
    check_state(book, false, false, true);
    bool b;
    OK(og_context_has_changes(context, &b, &err));
    CHECK(b);
    OK(og_context_save(context, &err));
    OK(og_context_count(context, request, &count, &err));
    INTEQ(count, 0);
    og_fetch_request_release(request);
}

int main(void) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "objects.sqlite");
    og_store *store;
    og_coordinator *coordinator = library_open(path, false, &store);
    og_context *context = NN(og_context_new(coordinator, &err));

    og_object *book = NN(og_context_insert(context, "Book", &err));
    test_defaults_and_nulls(book);
    test_typed_accessors(book);
    test_boxed_accessors(book);
    test_slot_accessors(book);
    test_save_and_ids(context, store, book);
    test_delete(context, book);

    og_context_release(context);
    og_coordinator_release(coordinator);
    free(path);
    og_t_remove_tree(dir);
    puts("objects: all checks passed");
    return 0;
}
