package org.hsa4j.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.util.Arrays;

import org.hsa4j.cuda.CudaServerProtocol.Frame;
import org.junit.jupiter.api.Test;

/** The device server's control frames: what is written is read back, and a damaged stream is an error, not a hang. */
class CudaServerProtocolTest {
    private static byte[] bytes(Frame... frames) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(b);
        for (Frame f : frames) {
            CudaServerProtocol.write(out, f);
        }
        return b.toByteArray();
    }

    private static DataInputStream in(byte[] b) {
        return new DataInputStream(new ByteArrayInputStream(b));
    }

    @Test
    void aLaunchFrameWithKernargBytesReadsBackEqual() throws IOException {
        Frame launch = new Frame(CudaServerProtocol.LAUNCH, 42, new long[] {7, 0x7f00_1234_0000L, 4, 1, 1, 256, 1, 1, 0, 1},
                "", new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
        assertEquals(launch, CudaServerProtocol.read(in(bytes(launch))));
    }

    @Test
    void framesFollowOneAnotherAndTheEndOfTheStreamReadsAsNull() throws IOException {
        Frame load = new Frame(CudaServerProtocol.LOAD, 1, new long[0], "hsa4j_kernels.ptx (PTX)", "// ptx\0".getBytes());
        Frame error = new Frame(CudaServerProtocol.ERROR, 1, new long[] {700}, "cuLaunchKernel: CUDA_ERROR_ILLEGAL_ADDRESS", null);
        Frame ok = new Frame(CudaServerProtocol.OK, 2, 99L);
        DataInputStream in = in(bytes(load, error, ok));
        assertEquals(load, CudaServerProtocol.read(in));
        assertEquals(error, CudaServerProtocol.read(in));
        assertEquals(ok, CudaServerProtocol.read(in));
        assertNull(CudaServerProtocol.read(in));
    }

    @Test
    void aFrameCutShortIsAnErrorNotAHang() throws IOException {
        byte[] whole = bytes(new Frame(CudaServerProtocol.MAP, 3, 0x1000L, 4096L));
        byte[] cut = Arrays.copyOf(whole, whole.length - 5);
        assertThrows(EOFException.class, () -> CudaServerProtocol.read(in(cut)));
    }

    @Test
    void aFrameWhoseFieldsDisagreeWithItsLengthIsRefused() throws IOException {
        byte[] b = bytes(new Frame(CudaServerProtocol.OK, 3, 1L));
        b[3] += 8;   // the length says 8 bytes more than the fields hold
        byte[] longer = Arrays.copyOf(b, b.length + 8);
        IOException e = assertThrows(IOException.class, () -> CudaServerProtocol.read(in(longer)));
        assertEquals("bad frame: 8 bytes left over", e.getMessage());
    }

    @Test
    void aNegativeOrHugeLengthIsRefusedBeforeAnythingIsAllocated() {
        byte[] huge = {0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff};
        assertThrows(IOException.class, () -> CudaServerProtocol.read(in(huge)));
        byte[] negative = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff};
        assertThrows(IOException.class, () -> CudaServerProtocol.read(in(negative)));
    }
}
