/* history_sync.c: processes kept in step through persistent history
 * (docs/history.md). A follower keeps the token of the last transaction it has
 * seen; when a remote-change notification arrives it reads the history after
 * that token, merges each transaction others wrote into its context, and keeps
 * the new token. Usage:
 *   history_sync                          two writer processes and a follower
 *   history_sync follow STORE COUNT       until COUNT notes by others arrived
 *   history_sync write STORE NAME COUNT */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, posix_spawn */
#include <objectgraph.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;
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

/* The store with history tracking and remote-change notifications. */
static og_context *open_store(const char *path, og_coordinator **coordinator) {
    og_model *model = NEED(og_model_new());
    og_entity *note = NEED(og_model_add_entity(model, "Note", &err));
    NEED(og_entity_add_attribute(note, "title", OG_ATTRIBUTE_STRING, &err));
    *coordinator = NEED(og_coordinator_new(model, &err));
    og_model_release(model);
    const char *keys[] = {OG_OPTION_HISTORY_TRACKING, OG_OPTION_REMOTE_CHANGE_NOTIFICATIONS};
    og_value *on[] = {og_value_new_bool(true), og_value_new_bool(true)};
    og_value *options = NEED(og_value_new_dictionary(keys, on, 2, &err));
    NEED(og_coordinator_add_store_with_options(*coordinator, "SQLite", NULL, path, options, &err));
    og_value_release(options);
    og_value_release(on[0]);
    og_value_release(on[1]);
    return NEED(og_context_new(*coordinator, &err));
}

static void write_notes(const char *path, const char *name, int count) {
    og_coordinator *coordinator;
    og_context *ctx = open_store(path, &coordinator);
    TRY(og_context_set_transaction_author(ctx, name, &err));
    for (int i = 0; i < count; i++) {
        char title[64];
        snprintf(title, sizeof title, "%s %d", name, i);
        TRY(og_object_set_string(NEED(og_context_insert(ctx, "Note", &err)), "title", title, &err));
        TRY(og_context_save(ctx, &err));
    }
    og_context_release(ctx);
    og_coordinator_release(coordinator);
}

/* Remote changes arrive on a library thread: they only wake the follower. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int pending;

static void on_remote_change(const char *store_uuid, const og_history_token *token, void *userdata) {
    (void)store_uuid, (void)token, (void)userdata;
    pthread_mutex_lock(&lock);
    pending = 1;
    pthread_cond_signal(&changed);
    pthread_mutex_unlock(&lock);
}

static void follow(const char *path, int count) {
    og_coordinator *coordinator;
    og_context *ctx = open_store(path, &coordinator);
    uint64_t observer;
    TRY(og_coordinator_add_remote_change_observer(coordinator, on_remote_change, NULL, &observer, &err));
    printf("ready\n");
    fflush(stdout);
    og_history_token *token = NULL; /* NULL: the whole history */
    int seen = 0;
    while (seen < count) {
        pthread_mutex_lock(&lock);
        struct timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_sec += 10;
        while (!pending) {
            if (pthread_cond_timedwait(&changed, &lock, &deadline) != 0) {
                fprintf(stderr, "no change for 10 s after %d notes\n", seen);
                exit(1);
            }
        }
        pending = 0;
        pthread_mutex_unlock(&lock);

        og_history *history = NEED(og_context_history(ctx, token, NULL, &err));
        for (size_t t = 0; t < og_history_count(history); t++) {
            const char *author = NULL;
            og_status has_author = og_history_transaction_string(history, t, OG_HISTORY_AUTHOR, &author, &err);
            if (has_author == OG_OK && strcmp(author, "follower") != 0) {
                og_changes *changes = NEED(og_history_transaction_changes(history, t, &err));
                TRY(og_context_merge_changes(ctx, changes, &err));
                for (size_t i = 0; i < og_changes_count(changes, OG_CHANGE_INSERTED); i++) {
                    char *uri = NEED(og_changes_uri_at(changes, OG_CHANGE_INSERTED, i, &err));
                    char *title = NULL;
                    TRY(og_object_get_string(NEED(og_context_existing_object(ctx, uri, &err)), "title", &title, &err));
                    printf("%s\n", title);
                    og_free(title);
                    og_free(uri);
                    seen++;
                }
                og_changes_release(changes);
            }
            og_history_token_release(token);
            token = NEED(og_history_transaction_token(history, t, &err));
        }
        og_history_release(history);
    }
    og_history_token_release(token);
    TRY(og_coordinator_remove_remote_change_observer(coordinator, observer, &err));
    og_context_release(ctx);
    og_coordinator_release(coordinator);
}

static pid_t spawn(char *const argv[], int *out) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    int fds[2];
    if (out != NULL) {
        if (pipe(fds) != 0) fail("pipe");
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
        posix_spawn_file_actions_addclose(&actions, fds[0]);
    }
    pid_t pid;
    if (posix_spawn(&pid, "/proc/self/exe", &actions, NULL, argv, environ) != 0) fail("posix_spawn");
    posix_spawn_file_actions_destroy(&actions);
    if (out != NULL) {
        close(fds[1]);
        *out = fds[0];
    }
    return pid;
}

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "follow") == 0) return follow(argv[2], atoi(argv[3])), 0;
    if (argc == 5 && strcmp(argv[1], "write") == 0) return write_notes(argv[2], argv[3], atoi(argv[4])), 0;

    char dir[] = "/tmp/og-history-sync-XXXXXX", path[4096];
    snprintf(path, sizeof path, "%s/notes.sqlite", (char *)NEED(mkdtemp(dir)));
    write_notes(path, "setup", 0); /* create the store before anyone watches it */
    int from_follower;
    pid_t follower = spawn((char *[]){argv[0], "follow", path, "4", NULL}, &from_follower);
    FILE *lines = fdopen(from_follower, "r");
    char line[256];
    if (fgets(line, sizeof line, lines) == NULL || strcmp(line, "ready\n") != 0) fail("the follower's start");
    pid_t writers[] = {spawn((char *[]){argv[0], "write", path, "ann", "2", NULL}, NULL),
                       spawn((char *[]){argv[0], "write", path, "bob", "2", NULL}, NULL)};
    for (int i = 0; i < 2; i++) waitpid(writers[i], NULL, 0);
    printf("the follower saw:");
    while (fgets(line, sizeof line, lines) != NULL) printf(" [%.*s]", (int)strcspn(line, "\n"), line);
    printf("\n");
    int status;
    waitpid(follower, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
