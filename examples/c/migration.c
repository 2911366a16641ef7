/* migration.c: a store written with version 1 of a model (Book: title, pages) opened
 * with version 2 (pages renamed pageCount, a new attribute year). First a migration
 * manager copies it through a policy written in C that upper-cases the titles, then
 * the old store is migrated in place when it is added. Usage: migration [folder] */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <ctype.h>
#include <objectgraph.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static og_error *err; /* a failing call leaves its error here */

static void fail(const char *call) {
    fprintf(stderr, "%s failed: %s (code %lld)\n", call, err ? og_error_message(err) : "", (long long)og_error_code(err));
    exit(1);
}
static void *need(const void *handle, const char *call) {
    if (handle == NULL) fail(call);
    return (void *)handle;
}
#define NEED(call) need((call), #call)
#define TRY(call) do { if ((call) != OG_OK) fail(#call); } while (0)

static og_model *library(int version) {
    og_model *model = NEED(og_model_new());
    og_entity *book = NEED(og_model_add_entity(model, "Book", &err));
    NEED(og_entity_add_attribute(book, "title", OG_ATTRIBUTE_STRING, &err));
    if (version == 1) {
        NEED(og_entity_add_attribute(book, "pages", OG_ATTRIBUTE_INTEGER32, &err));
    } else {
        og_property *count = NEED(og_entity_add_attribute(book, "pageCount", OG_ATTRIBUTE_INTEGER32, &err));
        TRY(og_property_set_renaming_identifier(count, "pages", &err)); /* the same attribute, renamed */
        NEED(og_entity_add_attribute(book, "year", OG_ATTRIBUTE_INTEGER16, &err));
    }
    return model;
}

/* Opens `path` with `version` (and `options`); prints the books when `print` is set. */
static void open_store(const char *path, int version, const og_value *options, int print) {
    og_model *model = library(version), *older = library(1);
    og_coordinator *coordinator = NEED(og_coordinator_new_with_versions(model, &older, 1, NULL, 0, &err));
    NEED(og_coordinator_add_store_with_options(coordinator, "SQLite", NULL, path, options, &err));
    og_context *context = NEED(og_context_new(coordinator, &err));
    if (version == 1) {
        const char *titles[2] = {"Dune", "Mort"};
        const int pages[2] = {412, 243};
        for (int i = 0; i < 2; i++) {
            og_object *book = NEED(og_context_insert(context, "Book", &err));
            TRY(og_object_set_string(book, "title", titles[i], &err));
            TRY(og_object_set_int64(book, "pages", pages[i], &err));
        }
        TRY(og_context_save(context, &err));
    } else if (print) {
        og_fetch_request *request = NEED(og_fetch_request_new("Book", &err));
        TRY(og_fetch_request_add_sort(request, "title", true, &err));
        og_results *books = NEED(og_context_fetch(context, request, &err));
        for (size_t i = 0; i < og_results_count(books); i++) {
            og_object *book = NEED(og_results_object_at(books, i, &err));
            char *title = NULL;
            int64_t pages = 0;
            TRY(og_object_get_string(book, "title", &title, &err));
            TRY(og_object_get_int64(book, "pageCount", &pages, &err));
            printf("%s %lld\n", title, (long long)pages);
            og_free(title);
        }
        og_results_release(books);
        og_fetch_request_release(request);
    }
    og_context_release(context);
    og_coordinator_release(coordinator);
    og_model_release(model);
    og_model_release(older);
}

/* The policy: the default destination object (from the attribute mappings), then its title in capitals. */
static og_status shout(og_migration_manager *manager, og_object *source, og_entity_mapping *mapping, og_error **error,
                       void *userdata) {
    (void)userdata;
    if (og_migration_manager_create_default_destination(manager, source, mapping, error) != OG_OK) return OG_ERROR;
    char *name = og_entity_mapping_name(mapping, error);
    og_results *made = name ? og_migration_manager_destination_instances(manager, name, &source, 1, error) : NULL;
    og_free(name);
    og_object *book = made ? og_results_object_at(made, 0, error) : NULL;
    og_results_release(made);
    char *title = NULL;
    if (!book || og_object_get_string(source, "title", &title, error) != OG_OK) return OG_ERROR;
    for (char *c = title; *c; c++) *c = (char)toupper((unsigned char)*c);
    og_status status = og_object_set_string(book, "title", title, error);
    og_free(title);
    return status;
}

static void progress(double fraction, void *last) { *(double *)last = fraction; }

int main(int argc, char **argv) {
    char template[] = "/tmp/og-migration-XXXXXX";
    const char *folder = argc > 1 ? argv[1] : NEED(mkdtemp(template));
    char old_path[4096], new_path[4096];
    snprintf(old_path, sizeof old_path, "%s/books-v1.sqlite", folder);
    snprintf(new_path, sizeof new_path, "%s/books-v2.sqlite", folder);
    remove(old_path);
    remove(new_path);
    open_store(old_path, 1, NULL, 0);

    /* The inferred mapping, with the book mapping handed to the policy. */
    og_model *v1 = library(1), *v2 = library(2);
    og_mapping_model *mapping = NEED(og_mapping_model_infer(v1, v2, &err));
    og_entity_mapping *books = NEED(og_mapping_model_entity_mapping_at(mapping, 0, &err));
    char *name = NEED(og_entity_mapping_name(books, &err));
    printf("%s\n", name); /* IEM_Transform_Book: the entity changed */
    og_free(name);
    og_migration_policy_callbacks policy = {.create_destination_instances = shout};
    TRY(og_migration_policy_register("Shout", &policy, &err));
    TRY(og_entity_mapping_set_kind(books, OG_ENTITY_MAPPING_CUSTOM, &err));
    TRY(og_entity_mapping_set_policy(books, "Shout", &err));
    og_entity_mapping_release(books);

    og_migration_manager *manager = NEED(og_migration_manager_new(v1, v2, &err));
    double last = 0;
    TRY(og_migration_manager_set_progress_callback(manager, progress, &last, &err));
    TRY(og_migration_manager_migrate(manager, old_path, "SQLite", NULL, mapping, new_path, "SQLite", NULL, &err));
    printf("progress reached %.2f\n", last);
    open_store(new_path, 2, NULL, 1);

    /* The old store itself, migrated when it is added (the mapping inferred). */
    const char *keys[2] = {OG_OPTION_MIGRATE_AUTOMATICALLY, OG_OPTION_INFER_MAPPING_MODEL};
    og_value *yes[2] = {og_value_new_bool(true), og_value_new_bool(true)};
    og_value *options = NEED(og_value_new_dictionary(keys, yes, 2, &err));
    open_store(old_path, 2, options, 1);

    og_value_release(options);
    og_value_release(yes[0]);
    og_value_release(yes[1]);
    og_migration_manager_release(manager);
    og_mapping_model_release(mapping);
    og_model_release(v1);
    og_model_release(v2);
    TRY(og_migration_policy_unregister("Shout", &err));
    remove(old_path);
    remove(new_path);
    if (argc <= 1) rmdir(folder);
    return 0;
}
