package org.hsa4j.cuda;

import java.util.HashMap;
import java.util.Map;

/**
 * What a device server has loaded of the agent's code objects, so that kernel objects users already
 * hold keep working after the agent moved to a new server: the agent keeps each kernel object's
 * code object bytes and symbol ({@link CudaKernel} -> {@link CudaModule} -> {@link CudaCodeObject});
 * this table maps a code object to its module in the current server and a (code object, symbol) to
 * its function there, loading each on first use. A new server starts with an empty table
 * ({@link #forServer}): everything is loaded again there from the kept bytes.
 *
 * <p>Thread-safe: queue processors of one server share it; a load runs under the table's lock
 * (first use of a code object only).
 */
final class CudaServerKernels {
    /** Loads into one server: {@code load} gives a module handle, {@code function} a function handle there. */
    interface Loader {
        long load(String name, byte[] image);

        long function(long module, String symbol);
    }

    private final Loader loader;
    private final long server;
    private final Map<CudaCodeObject, Long> modules = new HashMap<>();
    private final Map<CudaCodeObject, Map<String, Long>> functions = new HashMap<>();

    private CudaServerKernels(Loader loader, long server) {
        this.loader = loader;
        this.server = server;
    }

    /** An empty table for server number {@code server}, loading through {@code loader}. */
    static CudaServerKernels forServer(long server, Loader loader) {
        return new CudaServerKernels(loader, server);
    }

    /** The server this table belongs to. */
    long server() {
        return server;
    }

    /** The function of {@code symbol} of {@code code} in this server, loading the code object on first use. */
    synchronized long function(CudaCodeObject code, String symbol) {
        Map<String, Long> known = functions.computeIfAbsent(code, c -> new HashMap<>());
        Long f = known.get(symbol);
        if (f != null) {
            return f;
        }
        Long module = modules.get(code);
        if (module == null) {
            module = loader.load(code.name(), code.imageUnsafe());
            modules.put(code, module);
        }
        long made = loader.function(module, symbol);
        known.put(symbol, made);
        return made;
    }

    /** How many code objects this server has loaded. */
    synchronized int loadedCodeObjects() {
        return modules.size();
    }
}
