package org.hsa4j.kernel;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/** The worker-pool agents' loader: the executable defines the Java kernels in SVM kernel objects every such agent resolves. */
final class JvmCodeObjectLoader implements CodeObjectLoader {
    static final JvmCodeObjectLoader INSTANCE = new JvmCodeObjectLoader();

    private JvmCodeObjectLoader() {
    }

    @Override
    public LoadedCodeObject load(Executable executable, CodeObjectReader reader, int agentIndex) {
        if (!reader.format().isJvm()) {
            throw new HsaException(HsaStatus.INCOMPATIBLE_ARGUMENTS, "code object " + reader.origin() + " is "
                    + reader.format() + ", not compiled Java: a worker-pool agent runs only class files and jars");
        }
        executable.loadClasses(reader);
        return LoadedCodeObject.IN_EXECUTABLE;
    }
}
