package org.hsa4j.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The recovery bookkeeping: a server loads each kept code object once, and a new server loads the same bytes again. */
class CudaServerKernelsTest {
    private static final CudaCodeObject KERNELS = CudaCodeObject.fromResource(CudaCodeObjectTest.KERNELS_PTX);
    private static final CudaCodeObject RPC = CudaCodeObject.fromResource("org/hsa4j/cuda/kernels/hsa4j_rpc_kernels.ptx");

    /** Records what a server was asked to load; handles count up from the server's number times 1000. */
    private static final class Server implements CudaServerKernels.Loader {
        final List<String> loads = new ArrayList<>();
        final List<byte[]> images = new ArrayList<>();
        final List<String> lookups = new ArrayList<>();
        final long base;
        long next;

        Server(long number) {
            base = number * 1000;
        }

        @Override
        public long load(String name, byte[] image) {
            loads.add(name);
            images.add(image.clone());
            return base + ++next;
        }

        @Override
        public long function(long module, String symbol) {
            lookups.add(module + ":" + symbol);
            return base + ++next;
        }
    }

    @Test
    void aCodeObjectIsLoadedOnceAndEachSymbolLookedUpOncePerServer() {
        Server s = new Server(1);
        CudaServerKernels t = CudaServerKernels.forServer(1, s);
        long add = t.function(KERNELS, "hsa4j_vector_add");
        long mark = t.function(KERNELS, "hsa4j_mark");
        assertEquals(add, t.function(KERNELS, "hsa4j_vector_add"));
        assertEquals(mark, t.function(KERNELS, "hsa4j_mark"));
        assertEquals(List.of(KERNELS.name()), s.loads);
        assertEquals(List.of("1001:hsa4j_vector_add", "1001:hsa4j_mark"), s.lookups);
    }

    @Test
    void twoCodeObjectsAreTwoModules() {
        Server s = new Server(1);
        CudaServerKernels t = CudaServerKernels.forServer(1, s);
        t.function(KERNELS, "hsa4j_mark");
        t.function(RPC, "hsa4j_rpc_nop");
        assertEquals(2, t.loadedCodeObjects());
        assertEquals(List.of(KERNELS.name(), RPC.name()), s.loads);
    }

    @Test
    void aNewServerLoadsTheKeptBytesAgainAndGivesTheSymbolItsOwnFunction() {
        Server first = new Server(1);
        long before = CudaServerKernels.forServer(1, first).function(KERNELS, "hsa4j_vector_add");
        Server second = new Server(2);
        CudaServerKernels t = CudaServerKernels.forServer(2, second);
        long after = t.function(KERNELS, "hsa4j_vector_add");
        assertEquals(1002, before);
        assertEquals(2002, after);
        assertEquals(List.of(KERNELS.name()), second.loads);
        assertArrayEquals(KERNELS.image(), second.images.get(0), "the very bytes loaded before the fault");
    }
}
