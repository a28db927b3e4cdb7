package io.loadgate.api;

/** A dispatch's delivery state: a lease or a push makes it SENT; the step's own compare-and-set ACKs it. */
public enum DispatchStatus {
    PENDING,
    SENT,
    ACKED,
    DEAD
}
