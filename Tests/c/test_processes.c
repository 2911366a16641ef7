/* Several processes on one store file, one ctest per case:
 *  - sqlite_create_race: 16 processes open the same NEW SQLite file at once;
 *    all succeed and report the same store UUID.
 *  - sqlite_concurrent_saves: 4 processes insert and save to one SQLite file
 *    without NSPersistentStoreTimeoutOption; no save fails and every object
 *    is there at the end.
 *  - binary_two_writers: 2 processes save to one Binary file; every save
 *    succeeds or fails with OG_ERROR_STORE_SAVE_CONFLICTS (then the process
 *    opens the file anew and redoes its insert), and every acknowledged
 *    insert is there at the end.
 *  - callback_store_conflict: a callback store's save returning 2 fails the
 *    save with OG_ERROR_STORE_SAVE_CONFLICTS and changes nothing.
 *  - second_store_keeps_the_wal: a process that opens a second store on a file
 *    it uses, and reads its metadata without a stack, keeps its locks, so
 *    another process leaves its WAL alone.
 *
 * The parent never calls the library: every case does its work in forked
 * children (the library uses Dispatch, which does not survive a fork), so
 * all cases can also run in one process. Children report through pipes
 * (lines shorter than PIPE_BUF, so writes from several children do not mix)
 * and their exit status. */
#include "library_model.h"
#include "og_test_cases.h"

#include <errno.h>
#include <sys/wait.h>

/* ---- Processes ------------------------------------------------------------ */

/* Forks a child that runs body(arg) and exits 0 (a failed check exits 1). */
static pid_t spawn(void (*body)(void *), void *arg) {
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        body(arg);
        fflush(stdout);
        _exit(0);
    }
    return pid;
}

/* Waits for a child; true when it exited with status 0. */
static bool succeeded(pid_t pid) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return false;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* A line to a pipe, in one write. */
static void report(int fd, const char *line) {
    size_t n = strlen(line);
    CHECK(n < 512);
    CHECK(write(fd, line, n) == (ssize_t)n);
}

/* Everything readable from `fd` until every writer has closed it. */
static char *read_all(int fd) {
    size_t size = 0, capacity = 4096;
    char *text = malloc(capacity);
    for (;;) {
        if (size + 1024 > capacity) text = realloc(text, capacity *= 2);
        ssize_t n = read(fd, text + size, capacity - size - 1);
        if (n < 0 && errno == EINTR) continue;
        CHECK(n >= 0);
        if (n == 0) break;
        size += (size_t)n;
    }
    text[size] = '\0';
    return text;
}

/* A start gate: each child says it is ready and blocks in gate_wait; the
 * parent opens the gate once `count` children are ready, so they all go on
 * at once from the same point. */
typedef struct {
    int fds[2];  /* closed by the parent to open the gate */
    int ready[2]; /* one byte per ready child */
} gate;

static void gate_init(gate *g) {
    CHECK(pipe(g->fds) == 0);
    CHECK(pipe(g->ready) == 0);
}

static void gate_wait(gate *g) {
    close(g->fds[1]);
    close(g->ready[0]);
    CHECK(write(g->ready[1], "r", 1) == 1);
    close(g->ready[1]);
    char c;
    while (read(g->fds[0], &c, 1) < 0 && errno == EINTR) {
    }
    close(g->fds[0]);
}

static void gate_open(gate *g, int count) {
    close(g->ready[1]);
    char c;
    for (int n = 0; n < count;) { /* a child that died before its gate ends the wait early */
        ssize_t r = read(g->ready[0], &c, 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        n++;
    }
    close(g->ready[0]);
    close(g->fds[0]);
    close(g->fds[1]);
}

/* ---- The stack in a child ----------------------------------------------- */

static og_coordinator *open_store(const char *type, const char *path, og_store **store) {
    og_model *model = library_model_new(false);
    og_coordinator *coordinator = NN(og_coordinator_new(model, &err));
    og_model_release(model);
    og_store *added = NN(og_coordinator_add_store(coordinator, type, path, &err));
    if (store) *store = added;
    return coordinator;
}

static void insert_book(og_context *context, const char *title) {
    og_object *book = NN(og_context_insert(context, "Book", &err));
    OK(og_object_set_string(book, "title", title, &err));
}

static size_t count_books(og_context *context) {
    og_fetch_request *request = NN(og_fetch_request_new("Book", &err));
    size_t count = 0;
    OK(og_context_count(context, request, &count, &err));
    og_fetch_request_release(request);
    return count;
}

/* ---- sqlite_create_race ------------------------------------------------- */

enum { RACERS = 16 };

typedef struct {
    gate start;
    int out;
    const char *path;
} race_job;

static void open_new_file(void *arg) {
    race_job *job = arg;
    gate_wait(&job->start);
    og_store *store;
    og_coordinator *coordinator = open_store("SQLite", job->path, &store);
    char line[128];
    snprintf(line, sizeof line, "%s\n", og_store_uuid(store));
    report(job->out, line);
    og_coordinator_release(coordinator);
}

static void sqlite_create_race(void) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "new.sqlite");
    int results[2];
    CHECK(pipe(results) == 0);
    race_job job = {.out = results[1], .path = path};
    gate_init(&job.start);
    pid_t pids[RACERS];
    for (int i = 0; i < RACERS; i++) pids[i] = spawn(open_new_file, &job);
    gate_open(&job.start, RACERS);
    close(results[1]);
    char *text = read_all(results[0]);
    close(results[0]);
    int ok = 0;
    for (int i = 0; i < RACERS; i++) ok += succeeded(pids[i]);
    INTEQ(ok, RACERS);

    int lines = 0;
    char first[64] = "";
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"), lines++) {
        INTEQ(strlen(line), 36);
        if (lines == 0) snprintf(first, sizeof first, "%s", line);
        STREQ(line, first);
    }
    INTEQ(lines, RACERS);
    printf("  ok: %d processes opened the new file at once; one store, UUID %s\n", RACERS, first);
    free(text);
    free(path);
    og_t_remove_tree(dir);
}

/* ---- sqlite_concurrent_saves -------------------------------------------- */

enum { SAVERS = 4, SAVES = 40 };

typedef struct {
    gate start;
    const char *path;
    int index;
} save_job;

static void save_many(void *arg) {
    save_job *job = arg;
    og_coordinator *coordinator = open_store("SQLite", job->path, NULL); /* no timeout option */
    og_context *context = NN(og_context_new(coordinator, &err));
    gate_wait(&job->start);
    for (int k = 0; k < SAVES; k++) {
        char title[64];
        snprintf(title, sizeof title, "p%d-%d", job->index, k);
        insert_book(context, title);
        OK(og_context_save(context, &err)); /* a failed save (134090) fails the child */
    }
    og_context_release(context);
    og_coordinator_release(coordinator);
}

typedef struct {
    const char *type;
    const char *path;
    int out;
} check_job;

/* Reports the number of books, then every title, one per line. */
static void list_books(void *arg) {
    check_job *job = arg;
    og_coordinator *coordinator = open_store(job->type, job->path, NULL);
    og_context *context = NN(og_context_new(coordinator, &err));
    char line[128];
    snprintf(line, sizeof line, "%zu\n", count_books(context));
    report(job->out, line);
    og_fetch_request *request = NN(og_fetch_request_new("Book", &err));
    og_results *results = NN(og_context_fetch(context, request, &err));
    for (size_t i = 0; i < og_results_count(results); i++) {
        char *title = NULL;
        OK(og_object_get_string(NN(og_results_object_at(results, i, &err)), "title", &title, &err));
        snprintf(line, sizeof line, "%s\n", title);
        og_free(title);
        report(job->out, line);
    }
    og_results_release(results);
    og_fetch_request_release(request);
    og_context_release(context);
    og_coordinator_release(coordinator);
}

/* The books of the store at `path`, listed by a child: the count, and whether
 * each of `writers` x `per_writer` titles "p<i>-<k>" is there exactly once. */
static void check_titles(const char *type, const char *path, int writers, int per_writer) {
    int out[2];
    CHECK(pipe(out) == 0);
    check_job job = {.type = type, .path = path, .out = out[1]};
    pid_t pid = spawn(list_books, &job);
    close(out[1]);
    char *text = read_all(out[0]);
    close(out[0]);
    CHECK(succeeded(pid));
    char *line = strtok(text, "\n");
    CHECK(line != NULL);
    INTEQ(atoi(line), writers * per_writer);
    int *seen = calloc((size_t)(writers * per_writer), sizeof(int));
    while ((line = strtok(NULL, "\n")) != NULL) {
        int i = -1, k = -1;
        CHECK(sscanf(line, "p%d-%d", &i, &k) == 2);
        CHECK(i >= 0 && i < writers && k >= 0 && k < per_writer);
        seen[i * per_writer + k]++;
    }
    for (int n = 0; n < writers * per_writer; n++) INTEQ(seen[n], 1);
    free(seen);
    free(text);
}

static void sqlite_concurrent_saves(void) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "shared.sqlite");
    save_job jobs[SAVERS];
    pid_t pids[SAVERS];
    gate start;
    gate_init(&start);
    for (int i = 0; i < SAVERS; i++) {
        jobs[i] = (save_job){.start = start, .path = path, .index = i};
        pids[i] = spawn(save_many, &jobs[i]);
    }
    gate_open(&start, SAVERS);
    int ok = 0;
    for (int i = 0; i < SAVERS; i++) ok += succeeded(pids[i]);
    INTEQ(ok, SAVERS);
    check_titles("SQLite", path, SAVERS, SAVES);
    printf("  ok: %d processes x %d saves without a timeout option: none failed, %d books\n", SAVERS, SAVES,
           SAVERS * SAVES);
    free(path);
    og_t_remove_tree(dir);
}

/* ---- binary_two_writers ------------------------------------------------- */

enum { BINARY_WRITERS = 2, BINARY_SAVES = 25 };

typedef struct {
    gate start;
    const char *path;
    int index;
    int out;
} binary_job;

static void save_binary(void *arg) {
    binary_job *job = arg;
    int conflicts = 0;
    og_coordinator *coordinator = open_store("Binary", job->path, NULL);
    og_context *context = NN(og_context_new(coordinator, &err));
    gate_wait(&job->start); /* both have read the (empty) file before either saves */
    for (int k = 0; k < BINARY_SAVES; k++) {
        char title[64];
        snprintf(title, sizeof title, "p%d-%d", job->index, k);
        insert_book(context, title);
        while (og_context_save(context, &err) != OG_OK) {
            /* The only acceptable failure: another process saved since this one read. */
            CHECK(err != NULL);
            INTEQ(og_error_code(err), OG_ERROR_STORE_SAVE_CONFLICTS);
            og_t_clear();
            conflicts++;
            /* The store still holds what it read: read the file anew and redo the insert. */
            OK(og_context_reset(context, &err));
            og_context_release(context);
            og_coordinator_release(coordinator);
            coordinator = open_store("Binary", job->path, NULL);
            context = NN(og_context_new(coordinator, &err));
            insert_book(context, title);
        }
    }
    og_context_release(context);
    og_coordinator_release(coordinator);
    char line[64];
    snprintf(line, sizeof line, "%d\n", conflicts);
    report(job->out, line);
}

static void binary_two_writers(void) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "shared.binary");
    int out[2];
    CHECK(pipe(out) == 0);
    binary_job jobs[BINARY_WRITERS];
    pid_t pids[BINARY_WRITERS];
    gate start;
    gate_init(&start);
    for (int i = 0; i < BINARY_WRITERS; i++) {
        jobs[i] = (binary_job){.start = start, .path = path, .index = i, .out = out[1]};
        pids[i] = spawn(save_binary, &jobs[i]);
    }
    gate_open(&start, BINARY_WRITERS);
    close(out[1]);
    char *text = read_all(out[0]);
    close(out[0]);
    int ok = 0;
    for (int i = 0; i < BINARY_WRITERS; i++) ok += succeeded(pids[i]);
    INTEQ(ok, BINARY_WRITERS);
    int conflicts = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) conflicts += atoi(line);
    free(text);
    CHECK(conflicts >= 1); /* the later first save found the other's file */
    check_titles("Binary", path, BINARY_WRITERS, BINARY_SAVES);
    printf("  ok: %d processes x %d Binary saves: %d conflicts (134050) retried, no insert lost\n", BINARY_WRITERS,
           BINARY_SAVES, conflicts);
    free(path);
    og_t_remove_tree(dir);
}

/* ---- callback_store_conflict -------------------------------------------- */

typedef struct {
    int saves;
    bool refuse;
} shelf;

static int shelf_load(void *userdata, const char *path, uint8_t **bytes, size_t *length) {
    (void)userdata;
    (void)path;
    (void)bytes;
    (void)length;
    return 1; /* no store yet */
}

static int shelf_save(void *userdata, const char *path, const uint8_t *bytes, size_t length) {
    (void)path;
    (void)bytes;
    (void)length;
    shelf *s = userdata;
    if (s->refuse) return 2; /* another writer saved the document since it was loaded */
    s->saves++;
    return 0;
}

static void refuse_a_save(void *arg) {
    (void)arg;
    shelf state = {0, false};
    og_atomic_store_callbacks callbacks = {&state, shelf_load, shelf_save, NULL};
    OK(og_atomic_store_type_register("Shelf", &callbacks, &err));
    og_coordinator *coordinator = open_store("Shelf", "shelf", NULL);
    og_context *context = NN(og_context_new(coordinator, &err));
    insert_book(context, "kept");
    OK(og_context_save(context, &err));
    INTEQ(state.saves, 1);

    state.refuse = true;
    insert_book(context, "refused");
    FAILS(og_context_save(context, &err), OG_ERROR_STORE_SAVE_CONFLICTS, "another writer");
    bool changes = false;
    OK(og_context_has_changes(context, &changes, &err));
    CHECK(changes);
    og_context *fresh = NN(og_context_new(coordinator, &err));
    INTEQ(count_books(fresh), 1); /* the store's records are as they were */
    og_context_release(fresh);

    state.refuse = false;
    OK(og_context_save(context, &err));
    INTEQ(state.saves, 2);
    og_context_release(context);
    og_coordinator_release(coordinator);
    OK(og_store_type_unregister("Shelf", &err));
}

static void callback_store_conflict(void) { CHECK(succeeded(spawn(refuse_a_save, NULL))); }

/* ---- second_store_keeps_the_wal ------------------------------------------ */
/* Opening a second store on a file this process already uses must not drop the
 * locks its SQLite connections hold (closing any descriptor of the file would):
 * otherwise another process that closes its connection believes it is the
 * last, checkpoints, and deletes the WAL under this process's connections. */

typedef struct {
    gate opened;   /* the holder has both stores open */
    gate visited;  /* the visitor has come and gone */
    const char *path;
} wal_job;

static void hold_two_stores(void *arg) {
    wal_job *job = arg;
    og_coordinator *first = open_store("SQLite", job->path, NULL);
    og_context *ctx = NN(og_context_new(first, &err));
    for (int i = 0; i < 50; i++) insert_book(ctx, "kept in the WAL");
    OK(og_context_save(ctx, &err));
    og_coordinator *second = open_store("SQLite", job->path, NULL);
    /* Reading the file's metadata without a stack must not drop the locks either. */
    char *type = NN(og_store_file_metadata_string(NULL, job->path, "NSStoreType", &err));
    STREQ(type, "SQLite");
    og_free(type);
    gate_wait(&job->opened);
    gate_wait(&job->visited);
    char wal[4096];
    snprintf(wal, sizeof wal, "%s-wal", job->path);
    CHECK(access(wal, F_OK) == 0);
    og_context *other = NN(og_context_new(second, &err));
    INTEQ(count_books(other), 50);
    insert_book(ctx, "after the visit");
    OK(og_context_save(ctx, &err));
    INTEQ(count_books(other), 51);
    og_context_release(other);
    og_context_release(ctx);
    og_coordinator_release(second);
    og_coordinator_release(first);
}

static void visit(void *arg) {
    wal_job *job = arg;
    gate_wait(&job->opened);
    og_coordinator *coordinator = open_store("SQLite", job->path, NULL);
    og_context *ctx = NN(og_context_new(coordinator, &err));
    INTEQ(count_books(ctx), 50);
    og_context_release(ctx);
    og_coordinator_release(coordinator);
}

static void second_store_keeps_the_wal(void) {
    char *dir = og_t_tempdir();
    char *path = og_t_path(dir, "wal.sqlite");
    wal_job job = {.path = path};
    gate_init(&job.opened);
    gate_init(&job.visited);
    pid_t holder = spawn(hold_two_stores, &job);
    pid_t visitor = spawn(visit, &job);
    gate_open(&job.opened, 2);
    CHECK(succeeded(visitor));
    gate_open(&job.visited, 1);
    CHECK(succeeded(holder));
    free(path);
    free(dir);
}

int main(int argc, char **argv) {
    static const og_t_case cases[] = {
        {"second_store_keeps_the_wal", second_store_keeps_the_wal},
        {"sqlite_create_race", sqlite_create_race},
        {"sqlite_concurrent_saves", sqlite_concurrent_saves},
        {"binary_two_writers", binary_two_writers},
        {"callback_store_conflict", callback_store_conflict},
    };
    return OG_T_RUN(cases, argc, argv);
}
