package org.hsa4j.examples;

import org.hsa4j.amp.Amp;
import org.hsa4j.amp.Extent;
import org.hsa4j.amp.FloatArrayView;
import org.hsa4j.amp.IntArrayView;
import org.hsa4j.amp.LongArrayView;
import org.hsa4j.runtime.HsaRuntime;

/** Zeroed arrays of fine-grained host memory (hostMalloc), seen by kernels and host threads alike. */
final class HostArrays {
    private HostArrays() {
    }

    /** {@code n} zeroed ints. */
    static IntArrayView ints(Amp amp, int n) {
        return amp.defaultAccelerator().ints(zeroed(amp.runtime(), 4L * n), new Extent(n));
    }

    /** {@code n} zeroed longs. */
    static LongArrayView longs(Amp amp, int n) {
        return amp.defaultAccelerator().longs(zeroed(amp.runtime(), 8L * n), new Extent(n));
    }

    /** {@code n} zeroed floats. */
    static FloatArrayView floats(Amp amp, int n) {
        return amp.defaultAccelerator().floats(zeroed(amp.runtime(), 4L * n), new Extent(n));
    }

    /** The SVM address of {@code bytes} zeroed bytes of fine-grained host memory. */
    static long zeroed(HsaRuntime rt, long bytes) {
        long address = rt.hostMalloc(bytes);
        rt.svm().fill(address, bytes, (byte) 0);
        return address;
    }
}
