package org.hsa4j.services.syscall;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.hsa4j.queue.DispatchCompletion;
import org.hsa4j.services.Fixture;
import org.hsa4j.services.Kernels;
import org.hsa4j.services.rpc.RpcStatus;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AbortTest {

    @Test
    void shouldFailTheCallingDispatchAndStopItsWorkItems() {
        try (Fixture f = Fixture.start()) {
            Syscalls sys = f.services.syscalls();
            CopyOnWriteArrayList<SyscallService.AbortEvent> events = new CopyOnWriteArrayList<>();
            f.services.setAbortListener(events::add);
            AtomicInteger ran = new AtomicInteger();
            DispatchCompletion done = Kernels.launch(f.rt, f.queue, wi -> {
                ran.incrementAndGet();
                if (wi.flatLocalId() == 0) {
                    sys.abort(wi, 42);
                }
            }, 8, 8);
            HsaException e = assertThrows(HsaException.class, () -> Kernels.await(done));
            assertEquals(HsaStatus.EXCEPTION, e.status());
            assertEquals(1, ran.get(), "the work-items after the aborting one never ran");
            assertEquals(1, events.size());
            assertEquals(42, events.get(0).code());
        }
    }

    @Test
    void shouldRefuseEveryLaterCallOfTheAbortedDispatch() {
        try (Fixture f = Fixture.start()) {
            long dispatch = 0xABCD00L;
            long packet = 7;
            long[] args = {3};
            assertEquals(RpcStatus.ABORTED, f.services.client().invoke(f.rt.svm(), dispatch, packet,
                    Syscall.ABORT.opcode(), args));
            assertEquals(RpcStatus.ABORTED, f.services.client().invoke(f.rt.svm(), dispatch, packet,
                    Syscall.GETPID.opcode(), new long[8]));
            long[] other = new long[8];
            assertEquals(RpcStatus.OK, f.services.client().invoke(f.rt.svm(), dispatch, packet + 1,
                    Syscall.GETPID.opcode(), other));
            assertEquals(ProcessHandle.current().pid(), other[0]);
        }
    }

    @Test
    void shouldNotAbortWhenThePolicyDeniesIt() {
        try (Fixture f = Fixture.start()) {
            f.services.setSyscallPolicy(SyscallPolicy.deny(Set.of(Syscall.ABORT)));
            Syscalls sys = f.services.syscalls();
            long out = f.rt.hostMalloc(8);
            Kernels.run(f.rt, f.queue, wi -> wi.svm().setLong(Kernels.arg(wi, 0), sys.abort(wi, 1)), 1, 1, out);
            assertEquals(-Errno.EPERM, f.rt.svm().getLong(out));
            assertTrue(f.services.server().callsServed() > 0);
        }
    }
}
