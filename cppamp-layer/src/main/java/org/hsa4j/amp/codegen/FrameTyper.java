package org.hsa4j.amp.codegen;

import java.lang.classfile.CodeElement;
import java.lang.classfile.Instruction;
import java.lang.classfile.Label;
import java.lang.classfile.Opcode;
import java.lang.classfile.TypeKind;
import java.lang.classfile.attribute.StackMapFrameInfo;
import java.lang.classfile.attribute.StackMapFrameInfo.ObjectVerificationTypeInfo;
import java.lang.classfile.attribute.StackMapFrameInfo.SimpleVerificationTypeInfo;
import java.lang.classfile.attribute.StackMapFrameInfo.VerificationTypeInfo;
import java.lang.classfile.instruction.ArrayLoadInstruction;
import java.lang.classfile.instruction.ArrayStoreInstruction;
import java.lang.classfile.instruction.BranchInstruction;
import java.lang.classfile.instruction.ConstantInstruction;
import java.lang.classfile.instruction.ConvertInstruction;
import java.lang.classfile.instruction.DiscontinuedInstruction;
import java.lang.classfile.instruction.FieldInstruction;
import java.lang.classfile.instruction.IncrementInstruction;
import java.lang.classfile.instruction.InvokeDynamicInstruction;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.classfile.instruction.LabelTarget;
import java.lang.classfile.instruction.LoadInstruction;
import java.lang.classfile.instruction.LookupSwitchInstruction;
import java.lang.classfile.instruction.MonitorInstruction;
import java.lang.classfile.instruction.NewMultiArrayInstruction;
import java.lang.classfile.instruction.NewObjectInstruction;
import java.lang.classfile.instruction.NewPrimitiveArrayInstruction;
import java.lang.classfile.instruction.NewReferenceArrayInstruction;
import java.lang.classfile.instruction.NopInstruction;
import java.lang.classfile.instruction.OperatorInstruction;
import java.lang.classfile.instruction.ReturnInstruction;
import java.lang.classfile.instruction.StackInstruction;
import java.lang.classfile.instruction.StoreInstruction;
import java.lang.classfile.instruction.TableSwitchInstruction;
import java.lang.classfile.instruction.ThrowInstruction;
import java.lang.classfile.instruction.TypeCheckInstruction;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.DynamicConstantDesc;
import java.lang.constant.MethodHandleDesc;
import java.lang.constant.MethodTypeDesc;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The local-variable types at chosen instructions of a javac-compiled method, by straight-line
 * simulation from the method's own stack map frames.
 *
 * <p>javac writes a StackMapTable frame at every branch target, handler and after every
 * unconditional jump, so between two frames the code is straight-line: starting from the last
 * frame (or the method's entry), applying each instruction's effect on the operand stack and the
 * locals gives their exact verifier types, with no merging and no class hierarchy. That is all the
 * tile compiler needs: the types of the locals live at each barrier, to save and restore them.
 *
 * <p>On the way it checks what would make the rewrite unsound: monitors (a work-item cannot give
 * up the thread while holding one), subroutines, a barrier reached with values on the operand
 * stack, and the index or barrier escaping into code the compiler cannot see (passed to a method
 * outside the layer's tile API, stored in a field or array, captured by a lambda).
 */
final class FrameTyper {
    /** A verifier type: a kind and, for references, a class. */
    record Type(Kind kind, ClassDesc desc) {
        static final Type TOP = new Type(Kind.TOP, null);
        static final Type INT = new Type(Kind.INT, null);
        static final Type FLOAT = new Type(Kind.FLOAT, null);
        static final Type LONG = new Type(Kind.LONG, null);
        static final Type DOUBLE = new Type(Kind.DOUBLE, null);
        static final Type NULL = new Type(Kind.NULL, null);

        static Type ref(ClassDesc desc) {
            return new Type(Kind.REF, desc);
        }

        static Type uninitialized(ClassDesc desc) {
            return new Type(Kind.UNINIT, desc);
        }

        static Type of(ClassDesc desc) {
            if (!desc.isPrimitive()) {
                return ref(desc);
            }
            return switch (desc.descriptorString()) {
                case "J" -> LONG;
                case "F" -> FLOAT;
                case "D" -> DOUBLE;
                case "V" -> TOP;
                default -> INT;
            };
        }

        static Type of(TypeKind kind) {
            return switch (kind) {
                case LONG -> LONG;
                case FLOAT -> FLOAT;
                case DOUBLE -> DOUBLE;
                case REFERENCE -> ref(ConstantDescs.CD_Object);
                case VOID -> TOP;
                default -> INT;
            };
        }

        boolean wide() {
            return kind == Kind.LONG || kind == Kind.DOUBLE;
        }
    }

    /** Kinds of verifier types. */
    enum Kind { TOP, INT, FLOAT, LONG, DOUBLE, NULL, REF, UNINIT }

    /** The locals at one instruction, and its operand stack depth. */
    record Snapshot(Type[] locals, List<Type> stack) {
    }

    private final Map<Label, StackMapFrameInfo> frames = new HashMap<>();
    private final Predicate<Instruction> watched;
    private final Set<ClassDesc> guarded;
    private final Set<ClassDesc> trustedOwners;
    private final Map<Integer, Snapshot> snapshots = new HashMap<>();
    private final boolean[] written;
    private Type[] locals;
    private List<Type> stack = new ArrayList<>();
    private boolean live = true;
    private String problem;

    /**
     * @param maxLocals     the method's max_locals
     * @param entry         the method's entry locals (parameters, receiver first)
     * @param frameInfos    the method's stack map frames
     * @param watched       instructions whose entry state to record
     * @param guarded       types that must not escape (the tiled index, the barrier)
     * @param trustedOwners classes whose methods may receive guarded values
     */
    FrameTyper(int maxLocals, List<Type> entry, List<StackMapFrameInfo> frameInfos, Predicate<Instruction> watched,
               Set<ClassDesc> guarded, Set<ClassDesc> trustedOwners) {
        for (StackMapFrameInfo f : frameInfos) {
            frames.put(f.target(), f);
        }
        this.watched = watched;
        this.guarded = guarded;
        this.trustedOwners = trustedOwners;
        this.written = new boolean[maxLocals];
        this.locals = new Type[maxLocals];
        Arrays.fill(locals, Type.TOP);
        int slot = 0;
        for (Type t : entry) {
            locals[slot] = t;
            slot += t.wide() ? 2 : 1;
        }
    }

    /** Runs over {@code elements}; the state at watched instruction {@code i} is {@code snapshot(i)}. */
    void run(List<CodeElement> elements) {
        for (int i = 0; i < elements.size() && problem == null; i++) {
            CodeElement e = elements.get(i);
            if (e instanceof LabelTarget lt) {
                StackMapFrameInfo f = frames.get(lt.label());
                if (f != null) {
                    if (live) {
                        checkGuardedKept(f);
                    }
                    reset(f);
                }
            } else if (e instanceof Instruction ins) {
                if (!live) {
                    if (watched.test(ins)) {
                        fail("a barrier in code the compiler cannot type (no stack map frame before it)");
                    }
                    continue;
                }
                if (watched.test(ins)) {
                    snapshots.put(i, new Snapshot(locals.clone(), List.copyOf(stack)));
                }
                step(ins);
            }
        }
    }

    /** The state recorded before watched element {@code index}. */
    Snapshot snapshot(int index) {
        return snapshots.get(index);
    }

    /** True when some instruction stores into {@code slot}. */
    boolean written(int slot) {
        return slot < written.length && written[slot];
    }

    /** Why the method cannot be rewritten, or null. */
    String problem() {
        return problem;
    }

    private void fail(String why) {
        if (problem == null) {
            problem = why;
        }
    }

    // ---- frames ---------------------------------------------------------------------------------

    private void reset(StackMapFrameInfo f) {
        Arrays.fill(locals, Type.TOP);
        int slot = 0;
        for (VerificationTypeInfo v : f.locals()) {
            Type t = fromVerification(v);
            if (slot < locals.length) {
                locals[slot] = t;
            }
            slot += t.wide() ? 2 : 1;
        }
        stack = new ArrayList<>();
        for (VerificationTypeInfo v : f.stack()) {
            stack.add(fromVerification(v));
        }
        live = true;
    }

    private static Type fromVerification(VerificationTypeInfo v) {
        if (v instanceof SimpleVerificationTypeInfo s) {
            return switch (s) {
                case INTEGER -> Type.INT;
                case FLOAT -> Type.FLOAT;
                case LONG -> Type.LONG;
                case DOUBLE -> Type.DOUBLE;
                case NULL -> Type.NULL;
                case UNINITIALIZED_THIS -> Type.uninitialized(ConstantDescs.CD_Object);
                default -> Type.TOP;
            };
        }
        if (v instanceof ObjectVerificationTypeInfo o) {
            return Type.ref(o.classSymbol());
        }
        return Type.uninitialized(ConstantDescs.CD_Object);
    }

    /** A guarded value must keep its own type across a frame: widening it would hide an escape. */
    private void checkGuardedKept(StackMapFrameInfo f) {
        int slot = 0;
        for (VerificationTypeInfo v : f.locals()) {
            Type t = fromVerification(v);
            if (slot < locals.length && isGuarded(locals[slot]) && t.kind() != Kind.TOP
                    && !(t.kind() == Kind.REF && guarded.contains(t.desc()))) {
                fail("the tiled index or barrier is held in a variable of type " + t.desc().displayName());
            }
            slot += t.wide() ? 2 : 1;
        }
    }

    private void checkTarget(Label target) {
        StackMapFrameInfo f = frames.get(target);
        if (f != null) {
            checkGuardedKept(f);
        }
    }

    // ---- instructions ---------------------------------------------------------------------------

    private boolean isGuarded(Type t) {
        return t.kind() == Kind.REF && guarded.contains(t.desc());
    }

    private Type pop() {
        if (stack.isEmpty()) {
            fail("operand stack underflow while typing");
            return Type.TOP;
        }
        return stack.remove(stack.size() - 1);
    }

    private void push(Type t) {
        if (t.kind() != Kind.TOP) {
            stack.add(t);
        }
    }

    private void escapeCheck(Type value, String where) {
        if (isGuarded(value)) {
            fail("the tiled index or barrier escapes into " + where);
        }
    }

    private void step(Instruction ins) {
        switch (ins) {
            case LoadInstruction l ->
                    push(l.typeKind() == TypeKind.REFERENCE ? locals[l.slot()] : Type.of(l.typeKind()));
            case StoreInstruction s -> {
                Type v = pop();
                locals[s.slot()] = s.typeKind() == TypeKind.REFERENCE ? v : Type.of(s.typeKind());
                written[s.slot()] = true;
                if (v.wide() && s.slot() + 1 < locals.length) {
                    locals[s.slot() + 1] = Type.TOP;
                    written[s.slot() + 1] = true;
                }
            }
            case IncrementInstruction inc -> written[inc.slot()] = true;
            case ConstantInstruction c -> push(constantType(c));
            case OperatorInstruction o -> operator(o.opcode());
            case ConvertInstruction c -> {
                pop();
                push(Type.of(c.toType()));
            }
            case StackInstruction s -> stackOp(s.opcode());
            case ArrayLoadInstruction a -> {
                pop();
                Type array = pop();
                if (a.typeKind() == TypeKind.REFERENCE) {
                    push(array.kind() == Kind.REF && array.desc().isArray() ? Type.ref(array.desc().componentType())
                            : array.kind() == Kind.NULL ? Type.NULL : Type.ref(ConstantDescs.CD_Object));
                } else {
                    push(Type.of(a.typeKind()));
                }
            }
            case ArrayStoreInstruction a -> {
                Type v = pop();
                pop();
                pop();
                escapeCheck(v, "an array");
            }
            case FieldInstruction f -> field(f);
            case InvokeInstruction inv -> invoke(inv);
            case InvokeDynamicInstruction indy -> {
                MethodTypeDesc t = indy.typeSymbol();
                for (int i = t.parameterCount() - 1; i >= 0; i--) {
                    escapeCheck(pop(), "a lambda or string concatenation");
                }
                push(Type.of(t.returnType()));
            }
            case NewObjectInstruction n -> push(Type.uninitialized(n.className().asSymbol()));
            case NewPrimitiveArrayInstruction n -> {
                pop();
                push(Type.ref(primitiveDesc(n.typeKind()).arrayType()));
            }
            case NewReferenceArrayInstruction n -> {
                pop();
                push(Type.ref(n.componentType().asSymbol().arrayType()));
            }
            case NewMultiArrayInstruction n -> {
                for (int i = 0; i < n.dimensions(); i++) {
                    pop();
                }
                push(Type.ref(n.arrayType().asSymbol()));
            }
            case TypeCheckInstruction t -> {
                pop();
                push(t.opcode() == Opcode.CHECKCAST ? Type.ref(t.type().asSymbol()) : Type.INT);
            }
            case BranchInstruction b -> {
                switch (b.opcode()) {
                    case GOTO, GOTO_W -> live = false;
                    case IFEQ, IFNE, IFLT, IFGE, IFGT, IFLE, IFNULL, IFNONNULL -> pop();
                    default -> {
                        pop();
                        pop();
                    }
                }
                checkTarget(b.target());
            }
            case LookupSwitchInstruction s -> {
                pop();
                checkTarget(s.defaultTarget());
                s.cases().forEach(c -> checkTarget(c.target()));
                live = false;
            }
            case TableSwitchInstruction s -> {
                pop();
                checkTarget(s.defaultTarget());
                s.cases().forEach(c -> checkTarget(c.target()));
                live = false;
            }
            case ReturnInstruction r -> live = false;
            case ThrowInstruction t -> live = false;
            case MonitorInstruction m ->
                    fail("the kernel uses synchronized (a work-item cannot yield holding a monitor)");
            case DiscontinuedInstruction d -> fail("the kernel uses jsr/ret subroutines");
            case NopInstruction n -> {
            }
            default -> fail("unexpected instruction " + ins);
        }
    }

    private static ClassDesc primitiveDesc(TypeKind k) {
        return switch (k) {
            case BOOLEAN -> ConstantDescs.CD_boolean;
            case BYTE -> ConstantDescs.CD_byte;
            case CHAR -> ConstantDescs.CD_char;
            case SHORT -> ConstantDescs.CD_short;
            case INT -> ConstantDescs.CD_int;
            case LONG -> ConstantDescs.CD_long;
            case FLOAT -> ConstantDescs.CD_float;
            default -> ConstantDescs.CD_double;
        };
    }

    private static Type constantType(ConstantInstruction c) {
        if (c.opcode() == Opcode.ACONST_NULL) {
            return Type.NULL;
        }
        if (c.typeKind() != TypeKind.REFERENCE) {
            return Type.of(c.typeKind());
        }
        ConstantDesc v = c.constantValue();
        if (v instanceof String) {
            return Type.ref(ConstantDescs.CD_String);
        }
        if (v instanceof ClassDesc) {
            return Type.ref(ConstantDescs.CD_Class);
        }
        if (v instanceof MethodTypeDesc) {
            return Type.ref(ConstantDescs.CD_MethodType);
        }
        if (v instanceof MethodHandleDesc) {
            return Type.ref(ConstantDescs.CD_MethodHandle);
        }
        if (v instanceof DynamicConstantDesc<?> d) {
            return Type.of(d.constantType());
        }
        return Type.ref(ConstantDescs.CD_Object);
    }

    private void operator(Opcode op) {
        String name = op.name();
        if (op == Opcode.ARRAYLENGTH) {
            pop();
            push(Type.INT);
            return;
        }
        boolean unary = name.endsWith("NEG");
        pop();
        if (!unary) {
            pop();
        }
        if (name.contains("CMP")) {
            push(Type.INT);
            return;
        }
        push(switch (name.charAt(0)) {
            case 'L' -> Type.LONG;
            case 'F' -> Type.FLOAT;
            case 'D' -> Type.DOUBLE;
            default -> Type.INT;
        });
    }

    private void stackOp(Opcode op) {
        switch (op) {
            case POP -> pop();
            case POP2 -> {
                if (!pop().wide()) {
                    pop();
                }
            }
            case DUP -> {
                Type a = pop();
                push(a);
                push(a);
            }
            case DUP_X1 -> {
                Type a = pop();
                Type b = pop();
                push(a);
                push(b);
                push(a);
            }
            case DUP_X2 -> {
                Type a = pop();
                Type b = pop();
                if (b.wide()) {
                    push(a);
                    push(b);
                    push(a);
                } else {
                    Type c = pop();
                    push(a);
                    push(c);
                    push(b);
                    push(a);
                }
            }
            case DUP2 -> {
                Type a = pop();
                if (a.wide()) {
                    push(a);
                    push(a);
                } else {
                    Type b = pop();
                    push(b);
                    push(a);
                    push(b);
                    push(a);
                }
            }
            case DUP2_X1 -> {
                Type a = pop();
                if (a.wide()) {
                    Type b = pop();
                    push(a);
                    push(b);
                    push(a);
                } else {
                    Type b = pop();
                    Type c = pop();
                    push(b);
                    push(a);
                    push(c);
                    push(b);
                    push(a);
                }
            }
            case DUP2_X2 -> {
                Type a = pop();
                if (a.wide()) {
                    Type b = pop();
                    if (b.wide()) {
                        push(a);
                        push(b);
                        push(a);
                    } else {
                        Type c = pop();
                        push(a);
                        push(c);
                        push(b);
                        push(a);
                    }
                } else {
                    Type b = pop();
                    Type c = pop();
                    if (c.wide()) {
                        push(b);
                        push(a);
                        push(c);
                        push(b);
                        push(a);
                    } else {
                        Type d = pop();
                        push(b);
                        push(a);
                        push(d);
                        push(c);
                        push(b);
                        push(a);
                    }
                }
            }
            case SWAP -> {
                Type a = pop();
                Type b = pop();
                push(a);
                push(b);
            }
            default -> fail("unexpected stack instruction " + op);
        }
    }

    private void field(FieldInstruction f) {
        Type type = Type.of(f.typeSymbol());
        switch (f.opcode()) {
            case GETSTATIC -> push(type);
            case GETFIELD -> {
                pop();
                push(type);
            }
            case PUTSTATIC -> escapeCheck(pop(), "a static field");
            default -> {
                escapeCheck(pop(), "a field");
                pop();
            }
        }
    }

    private void invoke(InvokeInstruction inv) {
        MethodTypeDesc t = inv.typeSymbol();
        ClassDesc owner = inv.owner().asSymbol();
        boolean trusted = trustedOwners.contains(owner);
        for (int i = t.parameterCount() - 1; i >= 0; i--) {
            Type arg = pop();
            if (!trusted) {
                escapeCheck(arg, "a call of " + owner.displayName() + "." + inv.name().stringValue());
            }
        }
        if (inv.opcode() != Opcode.INVOKESTATIC) {
            Type receiver = pop();
            if (!trusted) {
                escapeCheck(receiver, "a call of " + owner.displayName() + "." + inv.name().stringValue());
            }
            if (receiver.kind() == Kind.UNINIT && inv.name().equalsString("<init>")) {
                Type made = Type.ref(receiver.desc());
                for (int i = 0; i < stack.size(); i++) {
                    if (stack.get(i).equals(receiver)) {
                        stack.set(i, made);
                    }
                }
                for (int i = 0; i < locals.length; i++) {
                    if (receiver.equals(locals[i])) {
                        locals[i] = made;
                    }
                }
            }
        }
        push(Type.of(t.returnType()));
    }
}
