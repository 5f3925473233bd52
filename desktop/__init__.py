"""Batchline's Qt desktop application: thin views and models over `core`."""
