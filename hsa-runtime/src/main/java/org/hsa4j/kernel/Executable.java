package org.hsa4j.kernel;

import java.lang.foreign.ValueLayout;
import java.lang.invoke.LambdaMetafactory;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandleProxies;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import org.hsa4j.memory.Allocation;
import org.hsa4j.memory.MemoryKind;
import org.hsa4j.memory.MemoryManager;
import org.hsa4j.memory.MemoryPool;
import org.hsa4j.memory.SegmentKind;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * An executable ({@code hsa_executable_t}): kernels loaded by symbol name. Define Java kernels
 * one by one or load every {@link KernelSymbol} method of a class or of a {@link CodeObjectReader}'s
 * class file or jar (a "code object"), define the global and readonly variables code objects refer
 * to ({@link ExternalVariable}), then {@link #freeze()} and look symbols up by name to get the
 * kernel object handle for packets or a variable's address.
 * Each Java kernel object is 64 bytes of SVM ({@link KernelObjectDescriptor}) whose allocation
 * carries the {@link KernelCode}, so a packet processor resolves a handle with one lookup; every
 * worker-pool agent runs it.
 *
 * <p>{@link #loadAgentCodeObject} hands a code object to one agent's {@link CodeObjectLoader}
 * instead: a worker-pool agent's loads compiled Java as above, a provided agent's loads its
 * device's code (the CUDA agent: PTX, cubin, fat binary) and returns its kernels, which this
 * executable lists as that agent's symbols ({@link ExecutableSymbol#agentIndex()}) until it is
 * destroyed and unloads them. One name may be a kernel of several agents (one PTX loaded for two
 * GPUs); {@link #symbol(String, CodeObjectAgent)} picks the agent's.
 */
public final class Executable implements AutoCloseable {
    private static final AtomicLong SYMBOL_IDS = new AtomicLong();

    private final MemoryManager memory;
    private final MemoryPool pool;
    private final Map<String, KernelCode> kernels = new LinkedHashMap<>();
    private final Map<String, Variable> variables = new LinkedHashMap<>();
    /** Agents' kernels by name and agent, in load order. */
    private final Map<AgentSymbol, AgentKernel> agentKernels = new LinkedHashMap<>();
    /** What agents loaded, to validate and unload. */
    private final List<Loaded> loaded = new ArrayList<>();
    private boolean frozen;
    private boolean destroyed;

    /** Created by the runtime's {@code createExecutable}. */
    public Executable(MemoryManager memory, MemoryPool pool) {
        this.memory = memory;
        this.pool = pool;
    }

    /** Defines kernel {@code name}; fails when the name is taken or the executable is frozen. */
    public synchronized Executable define(String name, KernelDescriptor descriptor, Kernel kernel) {
        HsaException.requireNonNull(kernel, "kernel");
        return add(name, descriptor, () -> new KernelCode(name, descriptor, kernel));
    }

    /**
     * Defines kernel {@code name} with a per-workgroup entry point: {@code kernel} runs once per
     * workgroup and covers the group's range itself.
     *
     * @throws HsaException INVALID_ARGUMENT when the descriptor declares barriers (the kernel runs
     *                      its whole group in one call, so no work-item could wait for another);
     *                      otherwise as {@link #define(String, KernelDescriptor, Kernel)}
     */
    public synchronized Executable defineWorkgroup(String name, KernelDescriptor descriptor, WorkgroupKernel kernel) {
        HsaException.requireNonNull(kernel, "kernel");
        HsaException.requireNonNull(descriptor, "descriptor");
        if (descriptor.barriers()) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "workgroup kernel " + name
                    + " runs its whole group in one call and cannot use workgroup barriers");
        }
        return add(name, descriptor, () -> new KernelCode(name, descriptor, kernel));
    }

    /**
     * Defines kernel {@code name} whose work-items run the kernel {@code setup} prepares once per
     * workgroup (checked views taken there cost nothing per work-item).
     *
     * @throws HsaException INVALID_ARGUMENT when the descriptor declares barriers; otherwise as
     *                      {@link #define(String, KernelDescriptor, Kernel)}
     */
    public synchronized Executable definePrepared(String name, KernelDescriptor descriptor, WorkgroupSetup setup) {
        HsaException.requireNonNull(setup, "setup");
        HsaException.requireNonNull(descriptor, "descriptor");
        if (descriptor.barriers()) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "prepared kernel " + name
                    + " runs its work-items in one loop and cannot use workgroup barriers");
        }
        return add(name, descriptor, () -> new KernelCode(name, descriptor, setup));
    }

    private Executable add(String name, KernelDescriptor descriptor, Supplier<KernelCode> make) {
        HsaException.requireNonNull(name, "name");
        HsaException.requireNonNull(descriptor, "descriptor");
        checkUsable();
        checkUnfrozen("define " + name);
        if (taken(name)) {
            throw new HsaException(HsaStatus.VARIABLE_ALREADY_DEFINED, "kernel " + name + " is already defined");
        }
        KernelCode code = make.get();
        Allocation object = memory.allocate(pool, KernelObjectDescriptor.BYTES, 64, MemoryKind.INTERNAL, -1L,
                pool.ownerAgent(), code);
        var s = object.segment();
        s.set(ValueLayout.JAVA_INT, KernelObjectDescriptor.KERNARG_SEGMENT_SIZE, descriptor.kernargSegmentSize());
        s.set(ValueLayout.JAVA_INT, KernelObjectDescriptor.GROUP_SEGMENT_SIZE, descriptor.groupSegmentSize());
        s.set(ValueLayout.JAVA_INT, KernelObjectDescriptor.PRIVATE_SEGMENT_SIZE, descriptor.privateSegmentSize());
        s.set(ValueLayout.JAVA_INT, KernelObjectDescriptor.FLAGS,
                descriptor.barriers() ? KernelObjectDescriptor.FLAG_BARRIERS : 0);
        s.set(ValueLayout.JAVA_LONG, KernelObjectDescriptor.SYMBOL_ID, SYMBOL_IDS.incrementAndGet());
        code.object = object;
        kernels.put(name, code);
        return this;
    }

    /**
     * Loads a code object: every {@code static void m(WorkItem)} method of {@code codeObject}
     * annotated with {@link KernelSymbol} becomes a kernel, and every {@link ExternalVariable}
     * field is set to its variable's address. Everything is checked before anything is defined,
     * so a refused code object defines nothing. The fields are the class's own: load a class into
     * one executable at a time, or use a {@link CodeObjectReader}, which defines fresh classes per load.
     *
     * @throws HsaException INVALID_CODE_OBJECT when the class has no such method or one has the wrong shape,
     *                      VARIABLE_ALREADY_DEFINED when a symbol name is taken, VARIABLE_UNDEFINED when
     *                      an external variable is not defined, FROZEN_EXECUTABLE when frozen
     */
    public synchronized Executable loadCodeObject(Class<?> codeObject) {
        HsaException.requireNonNull(codeObject, "codeObject");
        return load(codeObject.getName(), new Class<?>[] {codeObject});
    }

    /**
     * Loads every class of the reader's compiled-Java code object as {@link #loadCodeObject(Class)}
     * does, in classes defined for this load only: {@link #loadAgentCodeObject} for the worker-pool
     * agents, which all run these kernels.
     *
     * @throws HsaException INVALID_CODE_OBJECT_READER when the reader was destroyed,
     *                      INCOMPATIBLE_ARGUMENTS when it holds a device's code object (PTX, cubin,
     *                      fat binary: load it for its agent), else as {@link #loadCodeObject(Class)}
     */
    public synchronized Executable loadCodeObject(CodeObjectReader reader) {
        HsaException.requireNonNull(reader, "reader");
        checkUsable();
        checkUnfrozen("load " + reader.origin());
        return loadClasses(reader);
    }

    /** Loads a compiled-Java reader's classes; the worker-pool agents' {@link CodeObjectLoader} calls it. */
    Executable loadClasses(CodeObjectReader reader) {
        return load(reader.origin(), reader.defineClasses());
    }

    /**
     * {@code hsa_executable_load_agent_code_object}: hands the reader's code object to
     * {@code agent}'s {@link CodeObjectLoader}. A worker-pool agent loads compiled Java as
     * {@link #loadCodeObject(CodeObjectReader)} does; a provided agent loads its device's code and
     * its kernels become this executable's symbols for that agent. A refused or clashing code
     * object defines nothing.
     *
     * @throws HsaException INCOMPATIBLE_ARGUMENTS when the code object is not of the agent's ISA
     *                      (PTX for a worker-pool agent, a class file for the CUDA agent),
     *                      INVALID_CODE_OBJECT_READER when the reader was destroyed,
     *                      INVALID_CODE_OBJECT when the agent cannot load it,
     *                      VARIABLE_ALREADY_DEFINED when a kernel's name is taken for that agent,
     *                      FROZEN_EXECUTABLE when frozen, INVALID_EXECUTABLE when destroyed
     */
    public synchronized Executable loadAgentCodeObject(CodeObjectAgent agent, CodeObjectReader reader) {
        HsaException.requireNonNull(agent, "agent");
        HsaException.requireNonNull(reader, "reader");
        checkUsable();
        checkUnfrozen("load " + reader.origin());
        reader.checkLive();
        LoadedCodeObject object = agent.codeObjectLoader().load(this, reader, agent.index());
        List<AgentKernel> made = object.kernels();
        Map<AgentSymbol, AgentKernel> adding = new LinkedHashMap<>();
        for (AgentKernel k : made) {
            AgentSymbol key = new AgentSymbol(k.name(), agent.index());
            if (kernels.containsKey(k.name()) || variables.containsKey(k.name()) || agentKernels.containsKey(key)
                    || adding.putIfAbsent(key, k) != null) {
                unloadQuietly(object);
                throw new HsaException(HsaStatus.VARIABLE_ALREADY_DEFINED, "kernel " + k.name() + " of "
                        + reader.origin() + " is already defined for agent " + agent.name());
            }
        }
        agentKernels.putAll(adding);
        loaded.add(new Loaded(agent.name(), reader.origin(), object));
        return this;
    }

    /** A kernel of one agent's loaded code object. */
    private record AgentSymbol(String name, int agentIndex) {
    }

    /** One agent's loaded code object. */
    private record Loaded(String agentName, String origin, LoadedCodeObject object) {
    }

    /** True when {@code name} is a Java kernel, a variable, or a kernel of any agent. */
    private boolean taken(String name) {
        if (kernels.containsKey(name) || variables.containsKey(name)) {
            return true;
        }
        for (AgentSymbol s : agentKernels.keySet()) {
            if (s.name().equals(name)) {
                return true;
            }
        }
        return false;
    }

    private static void unloadQuietly(LoadedCodeObject object) {
        try {
            object.unload();
        } catch (RuntimeException e) {
            // unload never throws by contract; a loader that does must not keep the executable from closing
        }
    }

    private Executable load(String origin, Class<?>[] classes) {
        checkUsable();
        checkUnfrozen("load " + origin);
        Map<String, Method> found = new LinkedHashMap<>();
        Map<String, Class<?>> owners = new LinkedHashMap<>();
        List<Field> externals = new ArrayList<>();
        for (Class<?> c : classes) {
            for (Method m : c.getDeclaredMethods()) {
                KernelSymbol symbol = m.getAnnotation(KernelSymbol.class);
                if (symbol == null) {
                    continue;
                }
                if (!Modifier.isStatic(m.getModifiers()) || m.getReturnType() != void.class
                        || m.getParameterCount() != 1 || m.getParameterTypes()[0] != WorkItem.class) {
                    throw new HsaException(HsaStatus.INVALID_CODE_OBJECT,
                            m + " must be a static void method taking one WorkItem");
                }
                String name = symbol.name().isEmpty() ? m.getName() : symbol.name();
                if (taken(name) || found.putIfAbsent(name, m) != null) {
                    throw new HsaException(HsaStatus.VARIABLE_ALREADY_DEFINED, "kernel " + name + " of "
                            + c.getName() + " is already defined");
                }
                owners.put(name, c);
            }
            for (Field f : c.getDeclaredFields()) {
                ExternalVariable ref = f.getAnnotation(ExternalVariable.class);
                if (ref == null) {
                    continue;
                }
                if (!Modifier.isStatic(f.getModifiers()) || Modifier.isFinal(f.getModifiers()) || f.getType() != long.class) {
                    throw new HsaException(HsaStatus.INVALID_CODE_OBJECT, f + " must be a non-final static long field");
                }
                if (!variables.containsKey(ref.value())) {
                    throw new HsaException(HsaStatus.VARIABLE_UNDEFINED, "code object " + origin + " refers to variable "
                            + ref.value() + " (" + f.getDeclaringClass().getSimpleName() + "." + f.getName()
                            + "): define it before loading");
                }
                externals.add(f);
            }
        }
        if (found.isEmpty()) {
            throw new HsaException(HsaStatus.INVALID_CODE_OBJECT, origin + " has no @KernelSymbol method");
        }
        Map<String, Kernel> bound = new LinkedHashMap<>();
        found.forEach((name, m) -> bound.put(name, bind(owners.get(name), m)));
        for (Field f : externals) {
            setExternal(f, variables.get(f.getAnnotation(ExternalVariable.class).value()).address());
        }
        found.forEach((name, m) -> {
            KernelSymbol symbol = m.getAnnotation(KernelSymbol.class);
            define(name, new KernelDescriptor(symbol.kernargSize(), symbol.groupSegmentSize(),
                    symbol.privateSegmentSize(), symbol.barriers()), bound.get(name));
        });
        return this;
    }

    private static void setExternal(Field f, long address) {
        try {
            Executable.class.getModule().addReads(f.getDeclaringClass().getModule()); // for the module path
            MethodHandles.privateLookupIn(f.getDeclaringClass(), MethodHandles.lookup())
                    .findStaticVarHandle(f.getDeclaringClass(), f.getName(), long.class).setVolatile(address);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new HsaException(HsaStatus.INVALID_CODE_OBJECT, "cannot set " + f, e);
        }
    }

    /**
     * {@code hsa_executable_global_variable_define}: a program variable at {@code address}, one copy
     * for every agent. Define it before loading a code object that refers to it.
     *
     * @throws HsaException INVALID_ARGUMENT when {@code address} is in no live allocation,
     *                      VARIABLE_ALREADY_DEFINED, FROZEN_EXECUTABLE
     */
    public synchronized Executable defineGlobalVariable(String name, long address) {
        return defineVariable(name, address, SegmentKind.GLOBAL, VariableAllocation.PROGRAM, -1);
    }

    /**
     * {@code hsa_executable_agent_global_variable_define}: a global variable for the agent whose
     * index ({@code Agent.index()}) is {@code agentIndex}.
     */
    public synchronized Executable defineAgentGlobalVariable(int agentIndex, String name, long address) {
        return defineVariable(name, address, SegmentKind.GLOBAL, VariableAllocation.AGENT, checkAgent(agentIndex));
    }

    /**
     * {@code hsa_executable_readonly_variable_define}: a readonly-segment variable for the agent whose
     * index is {@code agentIndex}; kernels must only read it.
     */
    public synchronized Executable defineReadonlyVariable(int agentIndex, String name, long address) {
        return defineVariable(name, address, SegmentKind.READONLY, VariableAllocation.AGENT, checkAgent(agentIndex));
    }

    private static int checkAgent(int agentIndex) {
        if (agentIndex < 0) {
            throw new HsaException(HsaStatus.INVALID_AGENT, "agent index " + agentIndex + " names no agent");
        }
        return agentIndex;
    }

    private Executable defineVariable(String name, long address, SegmentKind segment, VariableAllocation allocation,
                                      int agentIndex) {
        HsaException.requireNonNull(name, "name");
        checkUsable();
        checkUnfrozen("define " + name);
        if (taken(name)) {
            throw new HsaException(HsaStatus.VARIABLE_ALREADY_DEFINED, "symbol " + name + " is already defined");
        }
        if (memory.find(address) == null) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, "variable " + name + " at 0x" + Long.toHexString(address)
                    + " is in no live allocation");
        }
        variables.put(name, new Variable(name, address, segment, allocation, agentIndex));
        return this;
    }

    /** A defined variable. */
    private record Variable(String name, long address, SegmentKind segment, VariableAllocation allocation,
                            int agentIndex) {
    }

    /**
     * The kernel interface over a kernel method: a lambda (as fast as a direct call) where this
     * module may define one in the owner's class, else (a code object reader's classes live in a
     * class loader, and so an unnamed module, of their own) a method-handle proxy.
     */
    private static Kernel bind(Class<?> owner, Method m) {
        try {
            Executable.class.getModule().addReads(owner.getModule()); // for the module path
            MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(owner, MethodHandles.lookup());
            MethodHandle target = lookup.unreflect(m);
            MethodType type = MethodType.methodType(void.class, WorkItem.class);
            if (!lookup.hasFullPrivilegeAccess()) {
                return MethodHandleProxies.asInterfaceInstance(Kernel.class, target);
            }
            return (Kernel) LambdaMetafactory.metafactory(lookup, "execute", MethodType.methodType(Kernel.class),
                    type, target, type).getTarget().invoke();
        } catch (Throwable e) {
            throw new HsaException(HsaStatus.INVALID_CODE_OBJECT, "cannot bind " + m, e);
        }
    }

    /** {@code hsa_executable_freeze}: no more definitions; symbols can be looked up. */
    public synchronized Executable freeze() {
        checkUsable();
        frozen = true;
        return this;
    }

    /** True once frozen. */
    public synchronized boolean isFrozen() {
        return frozen;
    }

    /** {@code HSA_EXECUTABLE_INFO_STATE}. */
    public synchronized ExecutableState state() {
        checkUsable();
        return frozen ? ExecutableState.FROZEN : ExecutableState.UNFROZEN;
    }

    /**
     * {@code hsa_executable_validate}: what would make a dispatch or variable access through this
     * executable fail, one line per problem; empty when it is valid. It checks that every kernel
     * object is live and every variable's memory is still allocated.
     */
    public synchronized List<String> validate() {
        checkUsable();
        List<String> problems = new ArrayList<>();
        for (KernelCode code : kernels.values()) {
            if (code.isReleased() || fromHandle(memory, code.handle()) != code) {
                problems.add("kernel " + code.name() + ": its kernel object is not live");
            }
        }
        for (Variable v : variables.values()) {
            if (memory.find(v.address()) == null) {
                problems.add("variable " + v.name() + ": its memory at 0x" + Long.toHexString(v.address()) + " was freed");
            }
        }
        for (Loaded l : loaded) {
            for (String p : l.object().validate()) {
                problems.add(l.origin() + " on " + l.agentName() + ": " + p);
            }
        }
        return problems;
    }

    /**
     * {@code hsa_executable_get_symbol_by_name} with no agent: a Java kernel, a variable, or the
     * kernel of the one agent that has {@code name}.
     *
     * @throws HsaException INVALID_EXECUTABLE when not frozen, INVALID_SYMBOL_NAME when unknown,
     *                      INVALID_ARGUMENT when several agents have a kernel of that name (name the agent)
     */
    public synchronized ExecutableSymbol symbol(String name) {
        HsaException.requireNonNull(name, "name");
        checkFrozen();
        ExecutableSymbol found = null;
        for (Map.Entry<AgentSymbol, AgentKernel> e : agentKernels.entrySet()) {
            if (e.getKey().name().equals(name)) {
                if (found != null) {
                    throw new HsaException(HsaStatus.INVALID_ARGUMENT, "kernel " + name + " is defined for agents "
                            + found.agentIndex() + " and " + e.getKey().agentIndex() + ": name the agent");
                }
                found = ExecutableSymbol.agentKernel(e.getValue(), e.getKey().agentIndex());
            }
        }
        return found != null ? found : programSymbol(name);
    }

    /**
     * {@code hsa_executable_get_symbol_by_name} for {@code agent}: its kernel {@code name}, else a
     * Java kernel or variable of that name.
     *
     * @throws HsaException INVALID_EXECUTABLE when not frozen, INVALID_SYMBOL_NAME when unknown
     */
    public synchronized ExecutableSymbol symbol(String name, CodeObjectAgent agent) {
        HsaException.requireNonNull(name, "name");
        HsaException.requireNonNull(agent, "agent");
        checkFrozen();
        AgentKernel k = agentKernels.get(new AgentSymbol(name, agent.index()));
        return k != null ? ExecutableSymbol.agentKernel(k, agent.index()) : programSymbol(name);
    }

    private void checkFrozen() {
        checkUsable();
        if (!frozen) {
            throw new HsaException(HsaStatus.INVALID_EXECUTABLE, "freeze the executable before looking up symbols");
        }
    }

    /** A Java kernel or a variable. */
    private ExecutableSymbol programSymbol(String name) {
        KernelCode code = kernels.get(name);
        if (code != null) {
            return ExecutableSymbol.kernel(name, code.handle(), code.descriptor());
        }
        Variable v = variables.get(name);
        if (v == null) {
            throw new HsaException(HsaStatus.INVALID_SYMBOL_NAME, "no symbol named " + name);
        }
        Allocation a = memory.find(v.address());
        long size = a == null ? 0 : a.base() + a.size() - v.address();
        return ExecutableSymbol.variable(name, v.address(), size, v.segment(), v.allocation(), v.agentIndex());
    }

    /**
     * {@code hsa_executable_iterate_symbols}: every symbol, Java kernels first, then the agents'
     * kernels in load order, then variables, each in definition order.
     */
    public synchronized List<ExecutableSymbol> symbols() {
        checkFrozen();
        List<ExecutableSymbol> out = new ArrayList<>();
        kernels.keySet().forEach(n -> out.add(programSymbol(n)));
        agentKernels.forEach((key, k) -> out.add(ExecutableSymbol.agentKernel(k, key.agentIndex())));
        variables.keySet().forEach(n -> out.add(programSymbol(n)));
        return out;
    }

    /**
     * The live kernel whose object handle is {@code handle}, or null. Used by packet processors.
     */
    public static KernelCode fromHandle(MemoryManager memory, long handle) {
        Allocation a = memory.find(handle);
        if (a != null && a.base() == handle && a.attachment() instanceof KernelCode code && !code.isReleased()) {
            return code;
        }
        return null;
    }

    private void checkUnfrozen(String what) {
        if (frozen) {
            throw new HsaException(HsaStatus.FROZEN_EXECUTABLE, "cannot " + what + ": the executable is frozen");
        }
    }

    private void checkUsable() {
        if (destroyed) {
            throw new HsaException(HsaStatus.INVALID_EXECUTABLE, "the executable has been destroyed");
        }
    }

    /**
     * {@code hsa_executable_destroy}: releases every kernel object and unloads what agents loaded
     * (the CUDA agent's modules); later dispatches of them fail.
     */
    @Override
    public synchronized void close() {
        if (destroyed) {
            return;
        }
        destroyed = true;
        for (KernelCode code : kernels.values()) {
            code.released = true;
            memory.release(code.object);
        }
        for (Loaded l : loaded) {
            unloadQuietly(l.object());
        }
        kernels.clear();
        variables.clear();
        agentKernels.clear();
        loaded.clear();
    }
}
