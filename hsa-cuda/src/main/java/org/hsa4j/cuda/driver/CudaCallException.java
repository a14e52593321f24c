package org.hsa4j.cuda.driver;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/** An {@link HsaException} from a CUDA driver call, keeping the raw {@code CUresult}. */
public final class CudaCallException extends HsaException {
    private final int result;

    /** A failure of a call that returned {@code result}. */
    public CudaCallException(HsaStatus status, int result, String message) {
        super(status, message);
        this.result = result;
    }

    /** The raw {@code CUresult}. */
    public int result() {
        return result;
    }

    /** True when the failure left the context unusable ({@link CuResult#poisonsContext}). */
    public boolean poisonsContext() {
        return CuResult.poisonsContext(result);
    }
}
