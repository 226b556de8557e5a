package io.jnet.rds;

/** States of an RDS connection path, Linux's RDS_CONN_* (net/rds/rds.h), moved by compare-and-set as rds_conn_path_transition. */
public enum RdsConnState {
    DOWN, CONNECTING, DISCONNECTING, UP, RESETTING, ERROR
}
