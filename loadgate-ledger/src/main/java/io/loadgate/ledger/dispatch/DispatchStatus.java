package io.loadgate.ledger.dispatch;

public enum DispatchStatus {
    PENDING,
    SENT,
    ACKED,
    DEAD
}
