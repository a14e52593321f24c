package org.hsa4j.services.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.TimeUnit;

import org.hsa4j.services.Fixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class OpcodeRegistryTest {

    @Test
    void shouldSplitAnOpcodeIntoNamespaceAndFunction() {
        int op = Opcodes.of(0x1234, 0xBEEF);
        assertEquals(0x1234, Opcodes.namespace(op));
        assertEquals(0xBEEF, Opcodes.function(op));
        assertEquals("1234:beef", Opcodes.toString(op));
        assertThrows(IllegalArgumentException.class, () -> Opcodes.of(0x10000, 0));
    }

    @Test
    void shouldFindEveryRegisteredOpcodeAmongMany() {
        OpcodeRegistry r = new OpcodeRegistry();
        r.claimNamespace(0x300, "a");
        RpcService[] services = new RpcService[500];
        for (int i = 0; i < services.length; i++) {
            services[i] = call -> { };
            r.register("a", Opcodes.of(0x300, i), ServiceMode.INLINE, services[i]);
        }
        for (int i = 0; i < services.length; i++) {
            assertSame(services[i], r.lookup(Opcodes.of(0x300, i)).service());
        }
        assertNull(r.lookup(Opcodes.of(0x300, 500)));
    }

    @Test
    void shouldRefuseAnOpcodeInANamespaceClaimedByAnother() {
        OpcodeRegistry r = new OpcodeRegistry();
        r.claimNamespace(0x200, "first");
        assertThrows(IllegalStateException.class, () -> r.claimNamespace(0x200, "second"));
        assertThrows(IllegalStateException.class,
                () -> r.register("second", Opcodes.of(0x200, 1), ServiceMode.INLINE, call -> { }));
    }

    @Test
    void shouldAnswerUnknownOpcodeOnceAServiceIsUnregistered() {
        try (Fixture f = Fixture.start()) {
            int op = Opcodes.of(Opcodes.USER_NAMESPACE_FIRST + 5, 1);
            f.services.registerService("app", op, ServiceMode.INLINE, call -> call.result(0, 99));
            assertEquals(99L, f.services.client().call(f.rt.svm(), op));
            f.services.registry().unregister(op);
            assertEquals(RpcStatus.UNKNOWN_OPCODE, f.services.client().invoke(f.rt.svm(), 0, 0, op, new long[8]));
        }
    }

    @Test
    void shouldKeepApplicationsOutOfTheReservedNamespaces() {
        try (Fixture f = Fixture.start()) {
            assertThrows(IllegalArgumentException.class, () -> f.services.registerService("app",
                    Opcodes.of(Opcodes.SYSCALL_NAMESPACE, 99), ServiceMode.INLINE, call -> { }));
        }
    }
}
