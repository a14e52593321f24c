package org.hsa4j.consumer;

import org.hsa4j.amp.Accelerator;
import org.hsa4j.amp.Amp;
import org.hsa4j.amp.Extent;
import org.hsa4j.amp.FloatArrayView;
import org.hsa4j.runtime.HsaRuntime;

/** What a user of the library writes first: c = a + b on the default accelerator, checked. */
public final class VectorAdd {
    private VectorAdd() {
    }

    /** Adds two vectors of {@code n} floats on the default accelerator; returns the wrong elements. */
    public static int run(int n) {
        try (HsaRuntime runtime = HsaRuntime.init(); Amp amp = Amp.on(runtime)) {
            Accelerator acc = amp.defaultAccelerator();
            FloatArrayView a = acc.floats(runtime.hostMalloc(4L * n), new Extent(n));
            FloatArrayView b = acc.floats(runtime.hostMalloc(4L * n), new Extent(n));
            FloatArrayView c = acc.floats(runtime.hostMalloc(4L * n), new Extent(n));
            for (int i = 0; i < n; i++) {
                a.set(i, i);
                b.set(i, 2f * i);
            }
            amp.parallelForEach(new Extent(n), idx -> c.set(idx.get(0), a.get(idx.get(0)) + b.get(idx.get(0)))).get();
            int wrong = 0;
            for (int i = 0; i < n; i++) {
                if (c.get(i) != 3f * i) {
                    wrong++;
                }
            }
            return wrong;
        }
    }

    /** Prints the result; exits 1 when any element is wrong. */
    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1 << 20;
        int wrong = run(n);
        System.out.println("hsa4j consumer: vector add of " + n + " floats, " + wrong + " wrong");
        if (wrong != 0) {
            System.exit(1);
        }
    }
}
