/* The register and unregister functions' former names (og_register_*,
 * og_unregister_*), kept for one release beside the og_<noun>_<verb> ones: each
 * still runs the same code. Built with OG_DEPRECATED empty, as a caller that
 * has not moved yet would silence the warnings. */
#define OG_DEPRECATED(message)
#include "og_test_cases.h"

static og_value *identity(const og_value *value, og_error **error, void *user) {
    (void)value; (void)error; (void)user;
    return og_value_new_data("x", 1, NULL);
}

static og_value *identity_bytes(const void *bytes, size_t length, og_error **error, void *user) {
    (void)error; (void)user;
    return og_value_new_data(bytes, length, NULL);
}

static void former_names(void) {
    /* An archivable class and a value transformer: registered and removed by the old names. */
    OK(og_register_archivable_class("OGFormerNameClass", &err));
    OK(og_unregister_archivable_class("OGFormerNameClass", &err));
    OK(og_register_value_transformer("OGFormerNameTransformer", identity, identity_bytes, NULL, &err));
    FAILS(og_value_transformer_register("OGFormerNameTransformer", identity, identity_bytes, NULL, &err), OG_ERROR_INVALID_ARGUMENT, "registered");
    OK(og_unregister_value_transformer("OGFormerNameTransformer", &err));
    /* Store types and migration policies: the old names check their input as the new ones do. */
    FAILS(og_register_atomic_store_type("SQLite", NULL, &err), OG_ERROR_INVALID_ARGUMENT, "NULL|built-in");
    FAILS(og_unregister_store_type("NoSuchStoreType", &err), OG_ERROR_STORE_INVALID_TYPE, "NoSuchStoreType");
    FAILS(og_register_migration_policy("OGFormerNamePolicy", NULL, &err), OG_ERROR_INVALID_ARGUMENT, "NULL");
    FAILS(og_unregister_migration_policy("OGFormerNamePolicy", &err), OG_ERROR_INVALID_ARGUMENT, "registered");
}

int main(int argc, char **argv) {
    static const og_t_case cases[] = {{"former_names", former_names}};
    return OG_T_RUN(cases, argc, argv);
}
