package org.hsa4j.cuda;

import java.util.Optional;

import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * Prints one line at the end of the module's test run: how many CUDA tests were skipped and why
 * (and how many NVRTC tests, where the device exists without NVRTC). Registered through
 * META-INF/services, so Surefire and the console launcher both load it. A
 * test or class counts when it was aborted by {@link Gpu#assumeDevice()}'s assumption; an aborted
 * class counts all its tests.
 */
public final class CudaSkipReport implements TestExecutionListener {
    private TestPlan plan;
    private int skipped;
    private String reason;
    private int noNvrtc;
    private String nvrtcReason;

    @Override
    public void testPlanExecutionStarted(TestPlan testPlan) {
        plan = testPlan;
        skipped = 0;
        reason = null;
        noNvrtc = 0;
        nvrtcReason = null;
    }

    @Override
    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
        if (result.getStatus() != TestExecutionResult.Status.ABORTED) {
            return;
        }
        Optional<Throwable> t = result.getThrowable();
        String message = t.map(Throwable::getMessage).orElse("");
        if (message == null) {
            return;
        }
        int tests = id.isTest() ? 1 : (int) plan.getDescendants(id).stream().filter(TestIdentifier::isTest).count();
        int at = message.indexOf(Gpu.NO_DEVICE);
        if (at >= 0) {
            reason = message.substring(at + Gpu.NO_DEVICE.length());
            skipped += tests;
        } else if ((at = message.indexOf(Gpu.NO_NVRTC)) >= 0) {
            nvrtcReason = message.substring(at + Gpu.NO_NVRTC.length());
            noNvrtc += tests;
        }
    }

    @Override
    public void testPlanExecutionFinished(TestPlan testPlan) {
        if (skipped > 0) {
            System.out.println("[hsa-cuda] " + skipped + " CUDA tests skipped: no CUDA device (" + reason + ")");
        } else {
            System.out.println("[hsa-cuda] 0 CUDA tests skipped" + (Gpu.platform().available()
                    ? ": CUDA devices " + Gpu.platform().devices().stream().map(CudaDeviceInfo::agentName).toList() : ""));
        }
        if (noNvrtc > 0) {
            System.out.println("[hsa-cuda] " + noNvrtc + " NVRTC tests skipped: no NVRTC (" + nvrtcReason + ")");
        }
    }
}
