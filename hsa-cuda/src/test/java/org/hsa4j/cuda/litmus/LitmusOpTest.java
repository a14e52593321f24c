package org.hsa4j.cuda.litmus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The op encoding hsa4j_litmus decodes: kind, order, location, register, value. */
class LitmusOpTest {
    @Test
    void shouldEncodeAStoreAsTheKernelDecodesIt() {
        int op = LitmusOp.st(1, 7, LitmusOp.Order.RELEASE).encode();
        assertEquals(1, op & 15, "kind");
        assertEquals(3, (op >> 4) & 15, "order");
        assertEquals(1, (op >> 8) & 15, "location");
        assertEquals(7, (op >> 16) & 0xffff, "value");
    }

    @Test
    void shouldEncodeALoadWithItsRegister() {
        int op = LitmusOp.ld(2, 3, LitmusOp.Order.ACQUIRE).encode();
        assertEquals(2, op & 15);
        assertEquals(2, (op >> 4) & 15);
        assertEquals(2, (op >> 8) & 15);
        assertEquals(3, (op >> 12) & 15);
    }

    @Test
    void shouldEncodeAnScFenceAsTheKernelsFenceSc() {
        int op = LitmusOp.fence(LitmusOp.Order.SC).encode();
        assertEquals(3, op & 15);
        assertEquals(4, (op >> 4) & 15);
    }

    @Test
    void shouldRefuseALocationBeyondTheFour() {
        assertThrows(IllegalArgumentException.class, () -> LitmusOp.st(4, 1, LitmusOp.Order.RELAXED));
    }
}
