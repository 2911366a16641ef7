/* Found by the C ABI misuse fuzzer (scripts/fuzz-abi.sh):
 * infinity or NaN written to a Decimal attribute aborts the process (issue 17,
 * item 2, fixed elsewhere). The fuzzer's batch: og_object_set_double(object#0,
 * "salary", inf, &err) and og_object_set_value(object#0, "salary", <double -inf>).
 *
 *   cc -Iinclude Fuzz/findings-known/decimal-infinity.c -Lbuild/swiftpm/release \
 *      -lobjectgraph -Wl,-rpath,$PWD/build/swiftpm/release -o /tmp/decimal-infinity
 *   /tmp/decimal-infinity      # expected: errors; before the fix: Illegal instruction
 */
#include <math.h>
#include <stdio.h>

#include "objectgraph.h"

int main(void) {
    og_error *e = NULL;
    og_model *model = og_model_from_json(
        "{\"format\":\"objectgraph-model\",\"formatVersion\":1,\"entities\":[{\"name\":\"Person\","
        "\"attributes\":[{\"name\":\"salary\",\"type\":\"decimal\"}]}]}", &e);
    og_coordinator *c = og_coordinator_new(model, &e);
    og_coordinator_add_store(c, "InMemory", NULL, &e);
    og_context *ctx = og_context_new(c, &e);
    og_object *person = og_context_insert(ctx, "Person", &e);
    double values[] = {INFINITY, -INFINITY, NAN};
    for (int i = 0; i < 3; i++) {
        og_status s = og_object_set_double(person, "salary", values[i], &e);
        printf("set_double(%g) -> %d %s\n", values[i], s, s ? og_error_message(e) : "");
        og_value *v = og_value_new_double(values[i]);
        s = og_object_set_value(person, "salary", v, &e);
        printf("set_value(%g) -> %d %s\n", values[i], s, s ? og_error_message(e) : "");
        og_value_release(v);
    }
    return 0;
}
