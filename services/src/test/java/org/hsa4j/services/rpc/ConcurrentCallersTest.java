package org.hsa4j.services.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.hsa4j.kernel.KernelDescriptor;
import org.hsa4j.memory.Svm;
import org.hsa4j.services.Fixture;
import org.hsa4j.services.Kernels;
import org.hsa4j.services.ServicesConfig;
import org.hsa4j.queue.DispatchCompletion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Thousands of work-items calling at once, with enough ports and with far too few. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConcurrentCallersTest {
    private static final int N = 4096;

    /** Every work-item echoes its global id plus 1 and stores the answer at out[id]. */
    private static void echoKernel(RpcClient client, org.hsa4j.kernel.WorkItem wi) {
        long id = wi.flatGlobalId();
        long answer = client.call(wi, Opcodes.ECHO, id + 1, id);
        wi.svm().setLong(Kernels.arg(wi, 0) + 8 * id, answer);
    }

    private static void assertEveryAnswer(Svm svm, long out, int n) {
        for (int i = 0; i < n; i++) {
            assertEquals(i + 1L, svm.getLong(out + 8L * i), "work-item " + i);
        }
    }

    @Test
    void shouldServe4096WorkItemsCallingAtOnce() {
        try (Fixture f = Fixture.start()) {
            long out = f.rt.hostMalloc(8L * N);
            RpcClient client = f.services.client();
            Kernels.run(f.rt, f.queue, wi -> echoKernel(client, wi), N, 64, out);
            assertEveryAnswer(f.rt.svm(), out, N);
        }
    }

    @Test
    void shouldServe4096WorkItemsAndHostThreadsThroughTwoPortsWithoutDeadlock() throws Exception {
        try (Fixture f = Fixture.start(4, ServicesConfig.builder().ports(2))) {
            long out = f.rt.hostMalloc(8L * N);
            RpcClient client = f.services.client();
            DispatchCompletion a = Kernels.launch(f.rt, f.queue, wi -> echoKernel(client, wi), N, 64, out);
            List<Thread> hosts = new ArrayList<>();
            long[] hostSums = new long[3];
            for (int t = 0; t < hostSums.length; t++) {
                int index = t;
                Thread th = new Thread(() -> {
                    for (int i = 0; i < 500; i++) {
                        hostSums[index] += client.call(f.rt.svm(), Opcodes.ECHO, i);
                    }
                });
                th.start();
                hosts.add(th);
            }
            Kernels.await(a);
            for (Thread th : hosts) {
                th.join();
            }
            assertEveryAnswer(f.rt.svm(), out, N);
            for (long s : hostSums) {
                assertEquals(499L * 500 / 2, s);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(GroupCall.Scope.class)
    void shouldBatch4096WorkItemsCooperatively(GroupCall.Scope scope) {
        try (Fixture f = Fixture.start()) {
            long out = f.rt.hostMalloc(8L * N);
            GroupCall group = new GroupCall(f.services.client(), scope, 0);
            long callsBefore = f.services.server().callsServed();
            int wg = 256;
            Kernels.await(Kernels.launch(f.rt, f.queue, KernelDescriptor.EMPTY.withBarriers(),
                    (int) GroupCall.groupBytes(wg), wi -> {
                        long id = wi.flatGlobalId();
                        long[] inOut = {id + 1};
                        RpcStatus s = group.call(wi, Opcodes.ECHO, inOut);
                        wi.svm().setLong(Kernels.arg(wi, 0) + 8 * id, s == RpcStatus.OK ? inOut[0] : -s.code());
                    }, N, wg, out));
            assertEveryAnswer(f.rt.svm(), out, N);
            int lanes = f.services.client().lanes();
            assertEquals(N / lanes, f.services.server().callsServed() - callsBefore);
        }
    }
}
