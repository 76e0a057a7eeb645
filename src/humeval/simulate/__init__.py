"""Simulated competitions with known truth, for testing methods and planning campaigns."""

from humeval.simulate.competition import Simulation, Truth, simulate_competition

__all__ = ["Simulation", "Truth", "simulate_competition"]
