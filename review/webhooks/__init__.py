"""Webhooks: the events a project's decisions cause (`events`), where they may be sent
(`addresses`), and their delivery by the task worker (`delivery`)."""
