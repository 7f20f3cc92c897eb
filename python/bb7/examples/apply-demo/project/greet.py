"""Greetings for the bb7 apply demo."""


def greet(name: str) -> str:
    return "Hello " + name


def farewell(name: str) -> str:
    return "Goodbye " + name


if __name__ == "__main__":
    print(greet("world"))
