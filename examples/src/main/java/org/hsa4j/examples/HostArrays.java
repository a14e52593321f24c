package org.hsa4j.examples;

import org.hsa4j.amp.Amp;
import org.hsa4j.amp.FloatArrayView;
import org.hsa4j.amp.IntArrayView;
import org.hsa4j.amp.LongArrayView;
import org.hsa4j.runtime.HsaRuntime;

/**
 * Zeroed arrays of fine-grained host memory, seen by kernels and host threads alike.
 *
 * @deprecated use the layer's own helpers, {@code Accelerator.newInts(n)}, {@code newLongs},
 *     {@code newFloats} (zeroed, freed with the layer); kept only while examples owned by other
 *     work still call it
 */
@Deprecated
final class HostArrays {
    private HostArrays() {
    }

    /** {@code n} zeroed ints. */
    static IntArrayView ints(Amp amp, int n) {
        return amp.defaultAccelerator().newInts(n);
    }

    /** {@code n} zeroed longs. */
    static LongArrayView longs(Amp amp, int n) {
        return amp.defaultAccelerator().newLongs(n);
    }

    /** {@code n} zeroed floats. */
    static FloatArrayView floats(Amp amp, int n) {
        return amp.defaultAccelerator().newFloats(n);
    }

    /** The SVM address of {@code bytes} zeroed bytes of fine-grained host memory. */
    static long zeroed(HsaRuntime rt, long bytes) {
        long address = rt.hostMalloc(bytes);
        rt.svm().fill(address, bytes, (byte) 0);
        return address;
    }
}
