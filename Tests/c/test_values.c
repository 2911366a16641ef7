/* Boxed values (og_value), the version string and og_free. */
#include "og_test.h"

static void test_version(void) {
    char expected[32];
    snprintf(expected, sizeof expected, "%d.%d.%d", OG_VERSION_MAJOR, OG_VERSION_MINOR,
             OG_VERSION_PATCH);
    STREQ(og_version(), expected);
    og_free(NULL); /* documented as ignored */
}

static void test_scalars(void) {
    og_value *v = NN(og_value_new_null());
    INTEQ(og_value_type_of(v), OG_VALUE_NULL);
    og_value_release(v);

    int64_t i;
    double d;
    bool b;
    v = NN(og_value_new_int64(INT64_MIN));
    INTEQ(og_value_type_of(v), OG_VALUE_INT64);
    OK(og_value_get_int64(v, &i, &err));
    CHECK(i == INT64_MIN);
    og_value_release(v);

    /* Integers and doubles convert to each other; booleans read as 0/1. */
    v = NN(og_value_new_int64(42));
    OK(og_value_get_double(v, &d, &err));
    DBLEQ(d, 42.0);
    og_value_release(v);

    v = NN(og_value_new_double(-2.25));
    INTEQ(og_value_type_of(v), OG_VALUE_DOUBLE);
    OK(og_value_get_double(v, &d, &err));
    DBLEQ(d, -2.25);
    og_value_release(v);

    v = NN(og_value_new_bool(true));
    INTEQ(og_value_type_of(v), OG_VALUE_BOOL);
    OK(og_value_get_bool(v, &b, &err));
    CHECK(b == true);
    OK(og_value_get_int64(v, &i, &err));
    INTEQ(i, 1);
    og_value_release(v);

    v = NN(og_value_new_date(1700000000.25));
    INTEQ(og_value_type_of(v), OG_VALUE_DATE);
    OK(og_value_get_date(v, &d, &err));
    DBLEQ(d, 1700000000.25);
    og_value_release(v);
}

static void test_text_values(void) {
    const char *s;
    og_value *v = NN(og_value_new_string("Zo\xc3\xab \xe2\x9c\x93", &err)); /* "Zoë ✓" */
    INTEQ(og_value_type_of(v), OG_VALUE_STRING);
    OK(og_value_get_string(v, &s, &err));
    STREQ(s, "Zo\xc3\xab \xe2\x9c\x93");
    og_value_release(v);

    v = NN(og_value_new_decimal("-12345.678", &err));
    INTEQ(og_value_type_of(v), OG_VALUE_DECIMAL);
    OK(og_value_get_decimal(v, &s, &err));
    STREQ(s, "-12345.678");
    og_value_release(v);

    v = NN(og_value_new_uri("https://example.org/books?id=7", &err));
    INTEQ(og_value_type_of(v), OG_VALUE_URI);
    OK(og_value_get_uri(v, &s, &err));
    STREQ(s, "https://example.org/books?id=7");
    og_value_release(v);
}

static void test_bytes_values(void) {
    static const uint8_t bytes[5] = {0, 1, 2, 0xfe, 0xff};
    const void *out;
    size_t length;
    og_value *v = NN(og_value_new_data(bytes, sizeof bytes, &err));
    INTEQ(og_value_type_of(v), OG_VALUE_DATA);
    OK(og_value_get_data(v, &out, &length, &err));
    INTEQ(length, sizeof bytes);
    CHECK(memcmp(out, bytes, sizeof bytes) == 0);
    og_value_release(v);

    static const uint8_t id[16] = {0xe6, 0x21, 0xe1, 0xf8, 0xc3, 0x6c, 0x49, 0x5a,
                                   0x93, 0xfc, 0x0c, 0x24, 0x7a, 0x3e, 0x6e, 0x5f};
    uint8_t id_out[16];
    v = NN(og_value_new_uuid(id, &err));
    INTEQ(og_value_type_of(v), OG_VALUE_UUID);
    OK(og_value_get_uuid(v, id_out, &err));
    CHECK(memcmp(id, id_out, 16) == 0);
    og_value_release(v);
}

static void test_value_errors(void) {
    const char *s;
    og_value *v = NN(og_value_new_int64(1));
    FAILS(og_value_get_string(v, &s, &err), OG_ERROR_TYPE_MISMATCH, "string|type");
    og_value_release(v);

    FAILS_NULL(og_value_new_string("bad \xff\xfe", &err), OG_ERROR_INVALID_UTF8, "UTF-8|UTF8");
    CHECK(og_value_new_decimal("not a number", &err) == NULL);
    CHECK(err != NULL);
    og_t_clear();
    FAILS_NULL(og_value_new_data(NULL, 4, &err), OG_ERROR_INVALID_ARGUMENT, "NULL|bytes|pointer");

    /* An invalid handle reads as NULL type; releasing NULL is harmless. */
    INTEQ(og_value_type_of(NULL), OG_VALUE_NULL);
    og_value_release(NULL);
}

int main(void) {
    test_version();
    test_scalars();
    test_text_values();
    test_bytes_values();
    test_value_errors();
    puts("values: all checks passed");
    return 0;
}
