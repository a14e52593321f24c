package org.hsa4j.stress.protocol;

import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.memory.Svm;
import org.hsa4j.services.rpc.ServerCall;

/**
 * The service the service-port stress tests register: it counts each request in the sample's SVM
 * slot by caller and answers with the caller's id, the slot and the request's third argument, so a
 * test tells a caller's own reply from the other caller's (or an earlier one's) and sees whether
 * each request was served exactly once.
 *
 * <p>Slot layout: {@link #SEEN} holds two ints, the number of requests the service saw from
 * caller 1 and from caller 2.
 */
final class RequestCounter {
    /** Offset of the two request counters (caller 1, caller 2) in a sample's slot. */
    static final long SEEN = 0;
    /** Bytes of a sample's slot. */
    static final int SLOT_BYTES = 2 * Integer.BYTES;

    private RequestCounter() {
    }

    /** The service: arguments (slot, caller, tag); counts the request, answers (caller, slot, tag); -1 as caller for an unknown one. */
    static void count(ServerCall call) {
        long slot = call.arg(0);
        long caller = call.arg(1);
        if (caller == 1 || caller == 2) {
            call.svm().atomicAddInt(slot + SEEN + Integer.BYTES * (caller - 1), 1, MemoryOrder.ACQ_REL,
                    MemoryScope.SYSTEM);
            call.result(0, caller);
        } else {
            call.result(0, -1);
        }
        call.result(1, slot);
        call.result(2, call.arg(2));
    }

    /** The request counts of {@code slot}, "caller1 caller2". */
    static String seen(Svm svm, long slot) {
        return svm.getInt(slot + SEEN) + " " + svm.getInt(slot + SEEN + Integer.BYTES);
    }
}
