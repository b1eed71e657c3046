# Spins forever on the CPU.
while True:
    pass
